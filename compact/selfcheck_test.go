package compact

import (
	"slices"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// The self-check names exactly the facts a compacted context cannot
// answer: an absent list is missing, a known-empty one is not.
func TestMissingAfterCompaction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		known Facts
		want  []Fact
	}{
		{name: "all five", in: `{"relay_context": {"goal": "g", "constraints": [], "latest_instruction": "i", "current_blockers": [], "controller_route_summary": {"task_id": "T"}}}`},
		{name: "nothing", in: `{}`, want: allFacts()},
		{name: "blockers removed by hand", in: `{"relay_context": {"goal": "g", "constraints": ["c"], "latest_instruction": "i", "controller_route_summary": {"run_id": "R"}}}`,
			want: []Fact{FactBlockers}},
		{name: "the ledger fills the blockers", in: `{"relay_context": {"goal": "g", "constraints": ["c"], "latest_instruction": "i", "controller_route_summary": {"run_id": "R"}}}`,
			known: Facts{CurrentBlockers: []string{"status=BLOCKED"}}},
		{name: "blank route fields", in: `{"relay_context": {"goal": "g", "constraints": [], "latest_instruction": "i", "current_blockers": [" "], "controller_route_summary": {"task_id": " "}}}`,
			want: []Fact{FactRoute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := Compact(c, tc.known)
			if got := out.Facts().Missing(); !slices.Equal(got, tc.want) {
				t.Errorf("missing %v, want %v\n%s", got, tc.want, out.Encode())
			}
		})
	}
}

// Stamp moves updated_at to the end and changes nothing else; the
// compaction keeps it, and compacting again changes nothing.
func TestStampSurvivesCompaction(t *testing.T) {
	c := &Context{}
	c.SetFacts(Facts{Goal: "g"})
	c.Stamp("2026-11-26T09:00:00+00:00")
	c.SetFacts(Facts{Constraints: []string{"no new deps"}, Route: ledger.Route{TaskID: "T"}})
	c.Stamp("2026-11-26T09:00:01+00:00")
	want := `{"relay_context":{"goal":"g","constraints":["no new deps"],"controller_route_summary":{"task_id":"T"},"updated_at":"2026-11-26T09:00:01+00:00"}}`
	if got, _ := c.MarshalJSON(); string(got) != want {
		t.Fatalf("stamped\n%s\nwant\n%s", got, want)
	}
	once, _ := Compact(c, Facts{})
	twice, _ := Compact(once, Facts{})
	if string(once.Encode()) != string(twice.Encode()) || once.UpdatedAt() != "2026-11-26T09:00:01+00:00" {
		t.Errorf("compaction moved the stamp:\n%s\n%s", once.Encode(), twice.Encode())
	}
}

// Trim keeps the newest n entries and leaves a clone untouched.
func TestTrimKeepsTheNewest(t *testing.T) {
	c := &Context{}
	for _, e := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if err := c.Append(ExecutionLogs, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	clone := c.Clone()
	if !c.Trim(ExecutionLogs, 2) || c.Trim(ExecutionLogs, 2) {
		t.Fatal("Trim reported wrongly")
	}
	if got, _ := c.MarshalJSON(); string(got) != `{"execution_logs":[{"n":2},{"n":3}]}` {
		t.Errorf("trimmed: %s", got)
	}
	if clone.Len() != 3 {
		t.Errorf("the clone lost entries: %d", clone.Len())
	}
	_ = c.Append(ExecutionLogs, []byte(`{"n":4}`))
	if got, _ := clone.MarshalJSON(); string(got) != `{"execution_logs":[{"n":1},{"n":2},{"n":3}]}` {
		t.Errorf("the clone changed: %s", got)
	}
}

// allFacts returns the five facts in the keep set's order.
func allFacts() []Fact {
	return []Fact{FactGoal, FactConstraints, FactLatestInstruction, FactBlockers, FactRoute}
}
