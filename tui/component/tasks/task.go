package tasks

import (
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
)

// Operations and payload values of the controller's events that the list
// reads (see the controller's events.go, review.go, persist.go,
// flowcb.go); the window reads them, never writes them.
const (
	opInstruction = "INSTRUCTION_RECEIVED"
	opControl     = "CONTROL_RECEIVED"
	opRunState    = "RUN_STATE"
	opRunFinished = "RUN_FINISHED"
	opReview      = "REVIEW_PENDING"
	opMetrics     = "STEP_METRICS"
	opWorktree    = "WORKTREE_READY"
	controlRetry  = "retry"
	// globalTask is the task id of the controller's own events.
	globalTask = "controller"
)

// Task is one task as the ledger tells it: its latest run and where that
// run stands.
type Task struct {
	ID string
	// Text is the instruction that made the task.
	Text string
	// slot is the task's latest run as the coordinator reported it,
	// folded by the projection (which keeps another run's news out).
	slot projection.Entry
	// Iteration is the highest loop iteration seen (0 outside a loop).
	Iteration int
	// Change is where the latest step of the task's run with a
	// worktree keeps its change (its WORKTREE_READY).
	Change live.ChangeSource
	// FollowUps counts the follow-ups the person sent to the task.
	FollowUps int
	// Started is when the controller received the instruction; Last
	// when the task last changed.
	Started, Last time.Time
	// cost is what each run reported it spent, in dollars.
	cost map[string]float64
	// line is the task's row as last drawn (not under the cursor), for
	// the list's generation gen; a change to the task clears gen.
	line string
	gen  uint64
	// cline is the row under the cursor, for generation cgen.
	cline string
	cgen  uint64
}

// NeedsYou reports whether the task waits for its person: a change to
// review, or a run that ended blocked or failed (not on purpose).
func (t *Task) NeedsYou() bool { return projection.Project(t.slot, false).NeedsYou() }

// Run is the id of the task's latest run.
func (t *Task) Run() string { return t.slot.RunID }

// Step is the step the latest news of the task's run was about.
func (t *Task) Step() string { return t.slot.StepID }

// Display is the task's display model; selected: the window steers it.
func (t *Task) Display(selected bool) projection.Display { return projection.Project(t.slot, selected) }

// Cost is what the task's runs reported they spent, in dollars.
func (t *Task) Cost() float64 {
	sum := 0.0
	for _, c := range t.cost {
		sum += c
	}
	return sum
}

// apply folds one event of the task into t. It reports whether anything
// the list shows changed.
func (t *Task) apply(e *ledger.Event, at time.Time) bool {
	if it := iterationOf(e.StepID); it > t.Iteration {
		t.Iteration = it
	}
	if e.EventType != ledger.EventSystem {
		return t.applyTyped(e, at)
	}
	p := e.Payload
	switch p.String("operation") {
	case opInstruction:
		t.instruction(e, at)
	case opControl:
		if p.String("kind") != controlRetry || !t.slot.Retried(e.RunID) {
			return false
		}
	case opRunState:
		if !t.slot.Fold(projection.Update{TaskID: t.ID, RunID: e.RunID, StepID: e.StepID, Lane: p.String("lane"),
			State: vocab.RunState(p.String("to")), Reason: vocab.Reason(p.String("reason_code"))}) {
			return false
		}
	case opRunFinished:
		if !t.slot.Fold(projection.Update{TaskID: t.ID, RunID: e.RunID, Final: vocab.Status(p.String("status")),
			Reason: vocab.Reason(p.String("reason_code"))}) {
			return false
		}
	case opReview:
		if !t.slot.Fold(projection.Update{TaskID: t.ID, RunID: e.RunID, StepID: e.StepID, Review: true}) {
			return false
		}
	case opMetrics:
		return t.metrics(e)
	case opWorktree:
		if !t.slot.Owns(projection.Update{TaskID: t.ID, RunID: e.RunID}) {
			return false
		}
		t.Change = live.ChangeSource{Step: e.StepID, Path: p.String("path"), Base: p.String("base"),
			Branch: p.String("branch"), Repo: p.String("repo")}
		return false // not shown in the list
	default:
		return false
	}
	t.Last, t.gen, t.cgen = at, 0, 0
	return true
}

// instruction starts the task, a new run of it, or counts a follow-up.
func (t *Task) instruction(e *ledger.Event, at time.Time) {
	p := e.Payload
	raw, _ := p.Get("follow_up")
	followUp := string(raw) == "true"
	if followUp {
		t.FollowUps++
	}
	if p.String("attached_to") != "" {
		return // a follow-up or a resend that names this run
	}
	if t.Text == "" || !followUp {
		t.Text = p.String("text")
	}
	if t.Started.IsZero() {
		t.Started = at
		if r, err := ledger.ParseTime(p.String("received_at")); err == nil {
			t.Started = r
		}
	}
	if e.RunID != t.slot.RunID {
		// A new run of the task: it starts where a new task does.
		t.slot.NewRun(e.RunID)
	}
}

// applyTyped reads the contract's typed events: an accepted or rejected
// change no longer waits for review.
func (t *Task) applyTyped(e *ledger.Event, at time.Time) bool {
	switch e.EventType {
	case ledger.EventAcceptancePassed, ledger.EventAcceptanceFailed:
		if !t.slot.Fold(projection.Update{TaskID: t.ID, RunID: e.RunID, Reviewed: true}) {
			return false
		}
	default:
		return false
	}
	t.Last, t.gen, t.cgen = at, 0, 0
	return true
}

// metrics keeps a run's total cost from its STEP_METRICS.
func (t *Task) metrics(e *ledger.Event) bool {
	raw, ok := e.Payload.Get("run_total")
	if !ok {
		return false
	}
	var total ledger.Object
	if err := total.UnmarshalJSON(raw); err != nil {
		return false
	}
	usd, _ := total.Get("cost_usd")
	c, err := strconv.ParseFloat(string(usd), 64)
	if err != nil {
		return false
	}
	if t.cost == nil {
		t.cost = map[string]float64{}
	}
	t.cost[e.RunID] = c
	t.gen, t.cgen = 0, 0
	return true
}

// iterationOf reads n from a loop step id "I<n>-…" (0 when none).
func iterationOf(stepID string) int {
	rest, ok := strings.CutPrefix(stepID, "I")
	if !ok {
		return 0
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return 0
	}
	return n
}
