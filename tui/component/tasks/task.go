package tasks

import (
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
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
	stateCancel   = "cancelled"
	controlRetry  = "retry"
	// globalTask is the task id of the controller's own events.
	globalTask = "controller"
)

// Task is one task as the ledger tells it: its latest run and where that
// run stands.
type Task struct {
	ID, Run string
	// Text is the instruction that made the task.
	Text string
	// State is the latest run state of the run's step attempt
	// (generating, waiting, …), Final the status the run ended with
	// (DONE, FAILED, BLOCKED; "" while it goes on).
	State, Final string
	// Reason is the latest reason code.
	Reason string
	// Step is the step the latest news was about.
	Step string
	// Review: a step's change waits for /accept or /reject.
	Review bool
	// Cancelled: the run ended because a person cancelled it.
	Cancelled bool
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
func (t *Task) NeedsYou() bool {
	return t.Review || t.Final == ledger.StatusBlocked || (t.Final == ledger.StatusFailed && !t.Cancelled)
}

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
		if p.String("kind") == controlRetry && e.RunID == t.Run {
			t.Final, t.Cancelled = "", false
		}
	case opRunState:
		if e.RunID != t.Run && t.Run != "" {
			return false
		}
		t.State, t.Step, t.Review = p.String("to"), e.StepID, false
		t.Cancelled = t.State == stateCancel
		if !ended(t.State) {
			// The run goes again (a retry, a follow-up that reopened
			// it): it has not ended any more.
			t.Final = ""
		}
		if r := p.String("reason_code"); r != "" {
			t.Reason = r
		}
	case opRunFinished:
		if e.RunID != t.Run && t.Run != "" {
			return false
		}
		t.Final, t.Review = p.String("status"), false
		if r := p.String("reason_code"); r != "" {
			t.Reason = r
		}
	case opReview:
		t.Review, t.Step = e.RunID == t.Run || t.Run == "", e.StepID
	case opMetrics:
		return t.metrics(e)
	case opWorktree:
		if e.RunID != t.Run && t.Run != "" {
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
	if e.RunID != t.Run {
		// A new run of the task: it starts where a new task does.
		t.Run, t.State, t.Final, t.Reason, t.Review, t.Cancelled = e.RunID, "", "", "", false, false
	}
}

// applyTyped reads the contract's typed events: an accepted or rejected
// change no longer waits for review.
func (t *Task) applyTyped(e *ledger.Event, at time.Time) bool {
	switch e.EventType {
	case ledger.EventAcceptancePassed, ledger.EventAcceptanceFailed:
		if !t.Review || e.RunID != t.Run {
			return false
		}
		t.Review = false
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

// ended reports whether a run state is one a step attempt ends in.
func ended(state string) bool {
	switch state {
	case "completed", "failed", stateCancel, "timedOut":
		return true
	}
	return false
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
