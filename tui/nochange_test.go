package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/workflow"
)

// noChangeUpdate is the ledger of a run whose one step changed nothing
// in its worktree, as the controller writes it: DONE, the step marked
// in delivery:no_change, and its ACCEPTANCE_PASSED with no_change.
func noChangeUpdate() live.LedgerUpdate {
	p := ledger.NewPipelineState(fixedNow)
	p.TaskID, p.RunID, p.Goal = "DK-0000CAFE", "DK-0000CAFE_20261122T092000Z", "is the readme fine?"
	p.Status, p.CurrentStep = ledger.StatusDone, "S1"
	p.Steps = append(p.Steps, ledger.Step{ID: "S1", Title: "S1", Category: "implementation", Goal: p.Goal})
	p.RoleLifecycle = ledger.Lifecycle{}.With("step:S1", "completed").With(workflow.KeyNoChange, "S1")
	passed := ledger.NewEvent(fixedNow.Add(time.Second), p.TaskID, p.RunID, "S1", ledger.EventAcceptancePassed, ledger.SeverityInfo,
		ledger.ObjectOf("criteria", []string{"the step's worktree holds no change against its base"}, "criterion", "no_change",
			"no_change", true, "key", "S1"))
	s := fixtureSnapshot()
	s.Pipeline.Value = p
	return live.LedgerUpdate{Snapshot: s, Events: []ledger.Event{passed}, ReadAt: fixedNow}
}

// The window says, in the reader's language, that a step that changed
// nothing had nothing to review: in the pipeline pane and in the
// conversation.
func TestWindowSaysNoChangeToReview(t *testing.T) {
	for lang, want := range map[string][]string{
		"en":    {"no change to review (S1)", "S1: no change to review; the step is done"},
		"zh-CN": {"没有需要审阅的改动（S1）", "S1：没有需要审阅的改动，该步骤已完成"},
	} {
		t.Run(lang, func(t *testing.T) {
			m := newTestModel(t, testOptions(lang), 200, 60)
			feed(m, fixtureUpdate(0))
			feed(m, noChangeUpdate())
			view := m.View()
			for _, s := range want {
				if !strings.Contains(view, s) {
					t.Errorf("the window lacks %q:\n%s", s, view)
				}
			}
		})
	}
}
