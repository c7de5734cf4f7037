package controller

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

var at = time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)

func TestNewRunIsValidAndRoutesToTheFirstStep(t *testing.T) {
	t.Parallel()
	in := instruction{MessageID: "m-1", Text: "  add a --json flag\n to status  ", At: at}
	p := newRun(in, nil, 3)
	if err := p.Validate(); err != nil {
		t.Fatalf("new run does not validate: %v", err)
	}
	r := p.Route()
	if r.TaskID != taskIDFor("m-1") || r.RunID != r.TaskID+"_20261122T020000Z" || r.ActiveLane != "worker" || r.ActiveStep != "S1" || r.NextAction != nextDispatch {
		t.Errorf("route %+v", r)
	}
	if p.Goal != in.Text { // verbatim, as the Python tool keeps --goal
		t.Errorf("goal %q", p.Goal)
	}
	if generation(&p) != 3 || messageIDOf(&p) != "m-1" {
		t.Errorf("generation %d message %q", generation(&p), messageIDOf(&p))
	}
	if again := taskIDFor("m-1"); again != r.TaskID || again == taskIDFor("m-2") {
		t.Errorf("task ids must be stable per message and differ between messages")
	}
}

func TestRunLifecycleThroughTwoSteps(t *testing.T) {
	t.Parallel()
	wf := []stepTemplate{{ID: "S1", Lane: "plan", Title: "Plan", Category: "analysis"}, {ID: "S2", Lane: "worker", Title: "Do", Category: "implementation"}}
	p := newRun(instruction{MessageID: "m", Text: "x", At: at}, wf, 1)
	if got := p.Steps[1].Dependencies; len(got) != 1 || got[0] != "S1" {
		t.Errorf("S2 dependencies %v", got)
	}
	markQueued(&p, "S1", "plan")
	if p.Route().NextAction != nextQueued {
		t.Errorf("queued next action %q", p.Route().NextAction)
	}
	markDispatched(&p, "S1", "plan")
	if p.Status != ledger.StatusExecute || p.Route().NextAction != nextWorking {
		t.Errorf("dispatched: %s %q", p.Status, p.Route().NextAction)
	}
	markStepCompleted(&p, "S1")
	if p.RoleLifecycle.Get("step:S1") != "completed" || p.Status == ledger.StatusDone {
		t.Fatalf("after S1: %s %v", p.Status, p.RoleLifecycle)
	}
	ensureStep(&p, wf[1])
	if r := p.Route(); r.ActiveStep != "S2" || r.ActiveLane != "worker" || r.NextAction != nextDispatch || len(p.Steps) != 2 {
		t.Errorf("after S1: %+v", r)
	}
	markDispatched(&p, "S2", "worker")
	markStepCompleted(&p, "S2")
	markRunDone(&p)
	if p.Status != ledger.StatusDone || p.Route().NextAction != nextDone {
		t.Errorf("after S2: %s %+v", p.Status, p.Route())
	}
	// A loop grows its steps as it goes.
	ensureStep(&p, stepTemplate{ID: "I1-judge", Title: "judge", Category: "review"})
	if n := len(p.Steps); n != 3 || p.Steps[2].Dependencies[0] != "S2" || LaneOfStep(&p, "S1") != "plan" || LaneOfStep(&p, "I1-judge") != "" {
		t.Errorf("appended step: %+v", p.Steps[n-1])
	}
	if err := p.Validate(); err != nil {
		t.Errorf("finished run does not validate: %v", err)
	}
}

func TestFailBlockAndRetry(t *testing.T) {
	t.Parallel()
	p := newRun(instruction{MessageID: "m", Text: "x", At: at}, nil, 1)
	markDispatched(&p, "S1", "worker")
	markStepFailed(&p, "S1", "WORKER_EXIT_NONZERO", false)
	if p.Status != ledger.StatusFailed || p.Route().NextAction != nextRetry || !strings.HasPrefix(p.RoleLifecycle.Get("step:S1"), "failed") {
		t.Errorf("failed: %s %+v %q", p.Status, p.Route(), p.RoleLifecycle.Get("step:S1"))
	}
	markRetry(&p, "S1", "worker")
	if p.Status != ledger.StatusExecute || p.Route().NextAction != nextDispatch {
		t.Errorf("retry: %s %+v", p.Status, p.Route())
	}
	markStepFailed(&p, "S1", "RESTART_LIMIT_REACHED", true)
	if p.Status != ledger.StatusBlocked || p.Route().NextAction != nextAwait {
		t.Errorf("blocked: %s %+v", p.Status, p.Route())
	}
	if err := p.Validate(); err != nil {
		t.Errorf("does not validate: %v", err)
	}
}

func TestLongInstructionGoalIsBounded(t *testing.T) {
	t.Parallel()
	p := newRun(instruction{MessageID: "m", Text: strings.Repeat("字", 1000), At: at}, nil, 1)
	if n := len([]rune(p.Goal)); n != maxGoalRunes || !strings.HasSuffix(p.Goal, "…") {
		t.Errorf("goal has %d runes, want %d ending in an ellipsis", n, maxGoalRunes)
	}
	// A goal as long as the Python tool keeps is kept whole.
	for _, text := range []string{strings.Repeat("字", maxGoalRunes), strings.Repeat("g", maxGoalRunes)} {
		if g := newRun(instruction{MessageID: "m", Text: text, At: at}, nil, 1).Goal; g != text {
			t.Errorf("a goal of %d runes was cut to %d", maxGoalRunes, len([]rune(g)))
		}
	}
	verbatim := newRun(instruction{MessageID: "m", Text: "line one\n\tline two", At: at}, nil, 1)
	if verbatim.Goal != "line one\n\tline two" {
		t.Errorf("goal %q, want the instruction verbatim", verbatim.Goal)
	}
	empty := newRun(instruction{MessageID: "m", Text: "   ", At: at}, nil, 1)
	if err := empty.Validate(); err != nil {
		t.Errorf("blank instruction gives an invalid pipeline: %v", err)
	}
}

// messageIDOf returns the id of the instruction that started the run, as
// the route records it.
func messageIDOf(p *ledger.PipelineState) string { return p.RoleLifecycle.Get(keyMessageID) }
