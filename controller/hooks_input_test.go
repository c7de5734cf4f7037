package controller

import (
	"testing"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
)

// The controller builds its hooks' input itself, but hooks written for
// the documented relay context must read the same bytes compaction would
// write for the same keep set.
func TestHookInputIsTheRelayContextCompactionWrites(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		facts                   compact.Facts
		step, lane, instr, next string
	}{
		{facts: compact.Facts{CurrentBlockers: []string{}}, next: nextDispatch},
		{facts: compact.Facts{Goal: "  ship <it> & \"more\" 修复\n", CurrentBlockers: []string{"status=BLOCKED", "  ", "step:S1=failed "},
			Route: ledger.Route{TaskID: "T1", RunID: "R1", ActiveLane: "old", ActiveStep: "S0", NextAction: "x"}},
			step: "S1", lane: "backend", instr: "\tdo it\nthen 😀 this\ttab \u2028 \x01\n", next: ledger.NextActionComplete},
		{facts: compact.Facts{CurrentBlockers: []string{}, Route: ledger.Route{TaskID: "T1"}}, step: "S2", instr: " ", next: nextDispatch},
	} {
		facts := tc.facts
		facts.LatestInstruction = tc.instr
		facts.Route.ActiveStep, facts.Route.ActiveLane, facts.Route.NextAction = tc.step, tc.lane, tc.next
		want, _ := compact.Compact(&compact.Context{}, facts)
		wantJSON, _ := want.MarshalJSON()
		if got := hookContext(tc.facts, tc.step, tc.lane, tc.instr, tc.next); string(got) != string(wantJSON) {
			t.Errorf("hook input:\n got %s\nwant %s", got, wantJSON)
		}
	}
}

func TestLatestInstructionFromHookOutput(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{
		`{"relay_context":{"latest_instruction":" new \n"}}`: "new",
		`{"relay_context":{"latest_instruction":7}}`:         "",
		`{"relay_context":[1]}`:                              "",
		`{"other":1}`:                                        "",
		`not json`:                                           "",
	} {
		if got := latestInstruction([]byte(out)); got != want {
			t.Errorf("latestInstruction(%s) = %q, want %q", out, got, want)
		}
	}
}
