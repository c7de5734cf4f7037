package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/workflow"
)

// TestBannerKeepsItsActionAt80Columns: at 80 columns the review banner
// goes on to a second line rather than lose "/reject with your reason",
// in both languages, and nothing is wider than the terminal.
func TestBannerKeepsItsActionAt80Columns(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string]string{"en": "/reject with your reason.", "zh-CN": "/reject"} {
		m := newTestModel(t, testOptions(lang), 80, 24)
		feed(m, pipelineAt(ledger.StatusExecute, "review", 0))
		view := m.View()
		checkFrame(t, view, 80, 24, lang+" review banner")
		flat := strings.Join(strings.Fields(view), " ")
		if !strings.Contains(flat, want) || !strings.Contains(flat, "/accept") {
			t.Errorf("%s: the banner lost its action %q:\n%s", lang, want, view)
		}
	}
}

// TestPayloadNumbersKeepTheirLabels: an event whose payload is numbers
// shows them labelled in the events pane ("duration_ms=3023") as far as
// they fit, and leaves out the rest; never "3023 3023199 15 1".
func TestPayloadNumbersKeepTheirLabels(t *testing.T) {
	t.Parallel()
	bare := regexp.MustCompile(`(^|[^=\d])(3023199|3023|15)\b`)
	for _, size := range [][2]int{{80, 24}, {110, 30}, {200, 60}} {
		m := newTestModel(t, testOptions("en"), size[0], size[1])
		p := fixturePipeline()
		ev := ledger.NewEvent(fixedNow, p.TaskID, p.RunID, "S2", ledger.EventStepCompleted, ledger.SeverityInfo,
			ledger.ObjectOf("duration_ms", 3023, "process_us", 3023199, "lines", 15, "exit_code", 1))
		feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", time.Second, ev))
		focusOn(t, m, "events") // the pane itself, not the step's line elsewhere
		view := m.View()
		checkFrame(t, view, size[0], size[1], "events")
		row := ""
		for _, l := range strings.Split(view, "\n") {
			if strings.Contains(l, "step completed") {
				row = l
			}
		}
		if row == "" || bare.MatchString(row) {
			t.Errorf("%dx%d: row %q shows a bare number, or no row", size[0], size[1], row)
		}
		if size[0] >= 110 && !strings.Contains(row, "duration_ms=3023") {
			t.Errorf("%dx%d: the first number lost its label: %q", size[0], size[1], row)
		}
	}
}

// convTexts returns the conversation's entries as saved, for counting.
func convTexts(m *Model) []string {
	var out []string
	for _, s := range m.conv.Saved() {
		out = append(out, s.ID+" "+strings.Join(s.Args, " ")+s.Text)
	}
	return out
}

// TestStepStatesFoldIntoOneLine: a step's run states make one line that
// shows where it went (moved to the end when it changes), not a line per
// state; another step has its own line.
func TestStepStatesFoldIntoOneLine(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 200, 60)
	p := fixturePipeline()
	state := func(step, s, reason string) {
		_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Run: &live.RunState{TaskID: p.TaskID, RunID: p.RunID,
			StepID: step, Lane: "worker", State: s, Reason: reason}}})
		runQuick(m, cmd)
	}
	for _, s := range []string{"waiting", "generating", "persisting"} {
		state("S2", s, "")
	}
	state("S3", "waiting", "")
	state("S2", "completed", "")
	n := 0
	for _, s := range convTexts(m) {
		if strings.Contains(s, "run_state") && strings.Contains(s, " S2 ") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d lines for S2's states, want 1: %q", n, convTexts(m))
	}
	flat := strings.Join(strings.Fields(m.View()), " ")
	if !strings.Contains(flat, "step S2: "+m.env.Labels.Or("tui.run", "waiting")+" → "+m.env.Labels.Or("tui.run", "generating")) || !strings.Contains(flat, "→ "+m.env.Labels.Or("tui.run", "completed")) {
		t.Errorf("S2's line does not show its trail:\n%s", m.View())
	}
	texts := convTexts(m)
	if last := texts[len(texts)-1]; !strings.Contains(last, " S2 ") {
		t.Errorf("the changed step's line is not the newest: %q", last)
	}
}

// TestEachReviewShownOnce: a reviewer step's summary and its verdict
// make one entry (either order), and the same events read again (a
// re-scan) add nothing.
func TestEachReviewShownOnce(t *testing.T) {
	t.Parallel()
	p := fixturePipeline()
	ev := func(d time.Duration, op string, kv ...any) ledger.Event {
		return ledger.NewEvent(fixedNow.Add(d), p.TaskID, p.RunID, "I1-reviewer", ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf(append([]any{"operation", op}, kv...)...))
	}
	summary := ev(time.Second, workflow.OpStepSummary, "iteration", 1, "role", "reviewer", "text", "two problems found",
		"by", "llm", "final", true)
	verdict := ev(2*time.Second, workflow.OpReviewVerdict, "iteration", 1, "role", "reviewer", "verdict", "request_changes",
		"reason", "2 problems", "findings", []string{"handler.go:17: empty body"}, "escalate", false)
	for _, order := range [][]ledger.Event{{summary, verdict}, {verdict, summary}} {
		m := newTestModel(t, testOptions("en"), 200, 60)
		for range 2 { // the second time is a re-scan of the same file
			for _, e := range order {
				feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", 3*time.Second, e))
			}
		}
		n := 0
		for _, s := range convTexts(m) {
			if strings.Contains(s, "I1-reviewer") {
				n++
			}
		}
		if n != 1 || !strings.Contains(m.View(), "I1-reviewer review: changes requested — 2 problems") {
			t.Errorf("%d entries for the review, want the verdict once: %q", n, convTexts(m))
		}
	}
}

// TestConversationClockMovesForward: an event read after a later note
// (the ledger's time is older) is not shown before it in time.
func TestConversationClockMovesForward(t *testing.T) {
	t.Parallel()
	now := fixedNow.Add(10 * time.Minute)
	opts := testOptions("en")
	opts.Now = func() time.Time { return now }
	m := newTestModel(t, opts, 200, 60)
	typeText(m, "hello")
	press(t, m, "enter")
	p := fixturePipeline()
	old := ledger.NewEvent(fixedNow, p.TaskID, p.RunID, "I1-reviewer", ledger.EventSystem, ledger.SeverityInfo,
		ledger.ObjectOf("operation", workflow.OpReviewVerdict, "iteration", 1, "role", "reviewer", "verdict", "approve", "reason", "fine"))
	feed(m, pipelineAt(ledger.StatusExecute, "wait_for_worker", time.Minute, old))
	saved := m.conv.Saved()
	for i := 1; i < len(saved); i++ {
		if saved[i].At.Before(saved[i-1].At) {
			t.Errorf("entry %d at %v is before entry %d at %v", i, saved[i].At, i-1, saved[i-1].At)
		}
	}
}
