package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Next actions a route summary names. They are stored in the ledger as
// they are and labelled in the person's language by the window.
const (
	nextDispatch = string(vocab.NextDispatch) // the step is about to start
	nextQueued   = string(vocab.NextQueued)   // the lane is busy; the step waits its turn
	nextWorking  = string(vocab.NextWorking)  // a worker is on the step
	nextDone     = string(vocab.NextDone)     // the run is finished
	nextRetry    = string(vocab.NextRetry)    // the step failed; a person decides
	nextAwait    = string(vocab.NextAwait)    // the run is blocked and waits for a person
	NextReview   = string(vocab.NextReview)   // a step's change waits for /accept or /reject
)

// Lifecycle keys daokit adds under the Python tool's route: prefix.
const (
	keyActiveLane = "route:active_lane"
	keyNextAction = "route:next_action"
	keyMessageID  = "route:message_id"
	keyGeneration = "controller_generation"
)

// stepTemplate is one step of the workflow an instruction becomes.
type stepTemplate struct {
	ID       string // step id, e.g. "S1"
	Lane     string // worker lane that carries it out
	Title    string // short human title
	Category string // reporting category, e.g. "implementation"
}

// defaultWorkflow is one step on lane "worker".
func defaultWorkflow() []stepTemplate {
	return []stepTemplate{{ID: "S1", Lane: "worker", Title: "Carry out the instruction", Category: "implementation"}}
}

// instruction is a person's request, as recorded before it is acknowledged.
type instruction struct {
	MessageID string    // client-chosen id; the dedup key
	Text      string    // what the person typed
	At        time.Time // when the controller received it
	// TaskID and RunID, when set, are the ids the sender asked for;
	// otherwise they derive from MessageID and At.
	TaskID, RunID string
}

// taskIDFor derives a stable task id from a message id, so that a resent
// instruction maps to the same task even across controller restarts.
func taskIDFor(messageID string) string {
	sum := sha256.Sum256([]byte(messageID))
	return "DK-" + strings.ToUpper(hex.EncodeToString(sum[:4]))
}

// maxGoalRunes is the longest goal kept whole: as long as the goals the
// Python tool keeps. A longer instruction's goal is cut there (its last
// character an ellipsis); the full text stays in the instruction event.
const maxGoalRunes = 300

// goalOf turns an instruction into the goal (steps require a
// non-empty goal; the full text stays in the instruction event).
func goalOf(text string) string {
	// Verbatim, newlines and tabs included, as the Python tool keeps
	// --goal: only the length is bounded, since the goal is copied into
	// every step of the pipeline document.
	goal := text
	if r := []rune(goal); len(r) > maxGoalRunes {
		goal = string(r[:maxGoalRunes-1]) + "…"
	}
	if strings.TrimSpace(goal) == "" {
		goal = "(empty instruction)"
	}
	return goal
}

// newRun builds the pipeline of a run for in, replacing whatever run the
// pipeline held (that run's history stays in events.jsonl). generation is
// the controller's fencing generation, recorded so that readers can tell
// which controller wrote the state.
func newRun(in instruction, workflow []stepTemplate, generation int) ledger.PipelineState {
	if len(workflow) == 0 {
		workflow = defaultWorkflow()
	}
	taskID := in.TaskID
	if taskID == "" {
		taskID = taskIDFor(in.MessageID)
	}
	runID := in.RunID
	if runID == "" {
		runID = ledger.DefaultRunID(taskID, in.At)
	}
	goal := goalOf(in.Text)
	p := ledger.NewPipelineState(in.At)
	p.TaskID, p.RunID, p.Goal = taskID, runID, goal
	p.Status = ledger.StatusPlanning
	p.CurrentStep = workflow[0].ID
	for _, t := range workflow {
		p.Steps = append(p.Steps, ledger.Step{
			ID: t.ID, Title: t.Title, Category: t.Category, Goal: goal,
			Actions:            []string{"worker:" + t.Lane},
			AcceptanceCriteria: []string{"the worker finishes with exit code 0"},
			ExpectedOutputs:    []string{"artifacts/" + taskID + "/" + runID + "/" + t.ID + "/stdout.log"},
			Dependencies:       []string{},
		})
	}
	first := workflow[0]
	corr := "corr:" + taskID + ":" + runID + ":" + first.ID
	p.RoleLifecycle = ledger.Lifecycle{}.
		With("orchestrator", "running").
		With("controller_lane", "controller").
		With("controller_ownership", "controller:"+first.ID).
		With(keyGeneration, strconv.Itoa(generation)).
		With("route:last_node", "route").
		With("route:last_id", "route.instruction."+first.Lane).
		With("route:last_reason", "instruction_received").
		With("route:trace_id", "trace:"+taskID+":"+runID+":"+first.ID).
		With("route:correlation_id", corr).
		With(keyMessageID, in.MessageID).
		With(keyActiveLane, first.Lane).
		With(keyNextAction, nextDispatch)
	for i := 1; i < len(workflow); i++ {
		p.Steps[i].Dependencies = []string{workflow[i-1].ID}
	}
	return p
}

// setRoute records the step, lane and next action.
func setRoute(p *ledger.PipelineState, step, lane, next string) {
	p.CurrentStep = step
	p.RoleLifecycle = p.RoleLifecycle.With(keyActiveLane, lane).With(keyNextAction, next)
}

// The step states the controller stores under role_lifecycle
// "step:<id>": vocab's, stored as the Python tool stores them.
const (
	stepQueued         = string(vocab.StepQueued)
	stepCompleted      = string(vocab.StepCompleted)
	stepRetryRequested = string(vocab.StepRetryRequested)
	stepNonAdopted     = string(vocab.StepFailedNonAdopted)
)

// markQueued records that the step waits for a free slot on its lane.
func markQueued(p *ledger.PipelineState, step, lane string) {
	setRoute(p, step, lane, nextQueued)
	p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, stepQueued)
}

// markDispatched records that a worker started on step.
func markDispatched(p *ledger.PipelineState, step, lane string) {
	p.Status = ledger.StatusExecute
	setRoute(p, step, lane, nextWorking)
	p.RoleLifecycle = p.RoleLifecycle.
		With("lane:"+lane, "active_step:"+step).
		With("step:"+step, string(vocab.StepDispatched.With(lane))).
		With("route:last_node", "dispatch").
		With("route:last_reason", "dispatch_started")
}

// markStepCompleted records a finished step; the route stays on it until
// the workflow starts the next one (ensureStep) or the run ends
// (markRunDone).
func markStepCompleted(p *ledger.PipelineState, step string) {
	p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, stepCompleted).
		With("route:last_node", "accept").With("route:last_reason", "step_completed")
	p.RoleLifecycle = p.RoleLifecycle.With(keyNextAction, nextDispatch)
}

// markRunDone records a run whose workflow finished.
func markRunDone(p *ledger.PipelineState) {
	p.Status = ledger.StatusDone
	p.RoleLifecycle = p.RoleLifecycle.With("orchestrator", "transition_complete").
		With("acceptance", "passed").With("controller_ownership", "controller:unassigned")
	setRoute(p, p.CurrentStep, p.RoleLifecycle.Get(keyActiveLane), nextDone)
}

// ensureStep makes t the current step, appending it after the last step
// when the workflow grows as it runs (a loop adds each iteration's steps
// as they start).
func ensureStep(p *ledger.PipelineState, t stepTemplate) {
	found := false
	for _, s := range p.Steps {
		if s.ID == t.ID {
			found = true
		}
	}
	if !found {
		deps := []string{}
		if n := len(p.Steps); n > 0 {
			deps = []string{p.Steps[n-1].ID}
		}
		action := "worker:" + t.Lane
		if t.Lane == "" {
			action = "judge:" + t.Category
		}
		p.Steps = append(p.Steps, ledger.Step{
			ID: t.ID, Title: t.Title, Category: t.Category, Goal: p.Goal,
			Actions:            []string{action},
			AcceptanceCriteria: []string{"the worker finishes with exit code 0"},
			ExpectedOutputs:    []string{"artifacts/" + p.TaskID + "/" + p.RunID + "/" + t.ID + "/stdout.log"},
			Dependencies:       deps,
		})
	}
	lane := t.Lane
	if lane == "" {
		lane = "judge" // a built-in judge has no lane; the route names its role
	}
	setRoute(p, t.ID, lane, nextDispatch)
}

// LaneOfStep returns the lane of step id as the pipeline records it (its
// "worker:<lane>" action), or "".
func LaneOfStep(p *ledger.PipelineState, id string) string {
	for _, s := range p.Steps {
		if s.ID != id {
			continue
		}
		for _, a := range s.Actions {
			if lane, ok := strings.CutPrefix(a, "worker:"); ok {
				return lane
			}
		}
	}
	return ""
}

// markStepFailed records a failed step. blocked marks the run BLOCKED
// instead of FAILED: it waits for a person, and reason says why (the
// restart limit, a loop's max iterations, an escalation, the budget),
// each a code of its own that status and the window word differently.
func markStepFailed(p *ledger.PipelineState, step, reason string, blocked bool) {
	p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, string(vocab.StepFailed.With(reason))).
		With("route:last_node", "accept").With("route:last_reason", strings.ToLower(reason)).
		With("controller_ownership", "controller:unassigned")
	if blocked {
		p.Status = ledger.StatusBlocked
		setRoute(p, step, p.RoleLifecycle.Get(keyActiveLane), nextAwait)
		return
	}
	p.Status = ledger.StatusFailed
	setRoute(p, step, p.RoleLifecycle.Get(keyActiveLane), nextRetry)
}

// markRetry puts a failed or blocked step back on the route.
func markRetry(p *ledger.PipelineState, step, lane string) {
	p.Status = ledger.StatusExecute
	if p.RoleLifecycle.Get("step:"+step) != stepCompleted {
		// A completed step stays completed: the workflow goes on after it
		// and never runs it again.
		p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, stepRetryRequested)
	}
	p.RoleLifecycle = p.RoleLifecycle.
		With("controller_ownership", "controller:"+step).
		With("route:last_reason", "retry_requested")
	setRoute(p, step, lane, nextDispatch)
}

// generation returns the fencing generation recorded in the pipeline (0
// when none).
func generation(p *ledger.PipelineState) int {
	n, _ := strconv.Atoi(p.RoleLifecycle.Get(keyGeneration))
	return n
}
