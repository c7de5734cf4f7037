package dashboard

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// The state keeps the newest events up to its tail, each with its payload
// cut by characters (never inside a Chinese character), counts them into
// their runs, the newest run first, and forgets both when events.jsonl
// was replaced.
func TestStateFoldsEvents(t *testing.T) {
	now := time.Now()
	ev := func(task, run, sev string, payload ledger.Object) ledger.Event {
		return ledger.NewEvent(now, task, run, "S1", ledger.EventSystem, sev, payload)
	}
	long := strings.Repeat("修", 1000)
	s := (&State{}).fold(live.LedgerUpdate{Initial: true, Events: []ledger.Event{
		ev("T1", "R1", ledger.SeverityInfo, ledger.ObjectOf("text", long)),
		ev("T2", "R2", ledger.SeverityError, ledger.ObjectOf("n", 1)),
		ev("T1", "R1", ledger.SeverityInfo, nil),
	}}, 2)
	if len(s.Events) != 2 || s.Events[0].TaskID != "T2" {
		t.Fatalf("events %+v", s.Events)
	}
	first := (&State{}).fold(live.LedgerUpdate{Events: []ledger.Event{ev("T1", "R1", ledger.SeverityInfo, ledger.ObjectOf("text", long))}}, 5)
	if p := first.Events[0].PayloadText; utf8.RuneCountInString(p) != payloadCap+1 || !strings.HasSuffix(p, "修…") || !utf8.ValidString(p) {
		t.Errorf("long payload shown as %q", p)
	}
	if s.Events[1].PayloadText != "{}" {
		t.Errorf("null payload shown as %q", s.Events[1].PayloadText)
	}
	want := []Run{{TaskID: "T1", RunID: "R1", Events: 2, LastType: ledger.EventSystem, LastAt: s.Events[1].Timestamp, LastStep: "S1"},
		{TaskID: "T2", RunID: "R2", Events: 1, LastType: ledger.EventSystem, LastAt: s.Events[0].Timestamp, LastStep: "S1", Errors: 1}}
	if len(s.Runs) != 2 || s.Runs[0] != want[0] || s.Runs[1] != want[1] {
		t.Errorf("runs %+v, want %+v", s.Runs, want)
	}
	reset := s.fold(live.LedgerUpdate{Reset: true}, 2)
	if len(reset.Events) != 0 || len(reset.Runs) != 0 || reset.Version != s.Version+1 {
		t.Errorf("after a reset: %+v", reset)
	}
	if len(s.Events) != 2 {
		t.Error("folding changed the earlier state")
	}
}
