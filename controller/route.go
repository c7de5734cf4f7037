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
	NextDispatch = string(vocab.NextDispatch) // the step is about to start
	NextQueued   = string(vocab.NextQueued)   // the lane is busy; the step waits its turn
	NextWorking  = string(vocab.NextWorking)  // a worker is on the step
	NextDone     = string(vocab.NextDone)     // the run is finished
	NextRetry    = string(vocab.NextRetry)    // the step failed; a person decides
	NextAwait    = string(vocab.NextAwait)    // the run is blocked and waits for a person
	NextReview   = string(vocab.NextReview)   // a step's change waits for /accept or /reject
)

// Lifecycle keys daokit adds under the Python tool's route: prefix.
const (
	keyActiveLane = "route:active_lane"
	keyNextAction = "route:next_action"
	keyMessageID  = "route:message_id"
	keyGeneration = "controller_generation"
)

// StepTemplate is one step of the workflow an instruction becomes.
type StepTemplate struct {
	ID       string // step id, e.g. "S1"
	Lane     string // worker lane that carries it out
	Title    string // short human title
	Category string // reporting category, e.g. "implementation"
}

// DefaultWorkflow is one step on lane "worker".
func DefaultWorkflow() []StepTemplate {
	return []StepTemplate{{ID: "S1", Lane: "worker", Title: "Carry out the instruction", Category: "implementation"}}
}

// Instruction is a person's request, as recorded before it is acknowledged.
type Instruction struct {
	MessageID string    // client-chosen id; the dedup key
	Text      string    // what the person typed
	At        time.Time // when the controller received it
	// TaskID and RunID, when set, are the ids the sender asked for;
	// otherwise they derive from MessageID and At.
	TaskID, RunID string
}

// TaskIDFor derives a stable task id from a message id, so that a resent
// instruction maps to the same task even across controller restarts.
func TaskIDFor(messageID string) string {
	sum := sha256.Sum256([]byte(messageID))
	return "DK-" + strings.ToUpper(hex.EncodeToString(sum[:4]))
}

// MaxGoalRunes is the longest goal kept whole: as long as the goals the
// Python tool keeps. A longer instruction's goal is cut there (its last
// character an ellipsis); the full text stays in the instruction event.
const MaxGoalRunes = 300

// goalOf turns an instruction into the goal (steps require a
// non-empty goal; the full text stays in the instruction event).
func goalOf(text string) string {
	// Verbatim, newlines and tabs included, as the Python tool keeps
	// --goal: only the length is bounded, since the goal is copied into
	// every step of the pipeline document.
	goal := text
	if r := []rune(goal); len(r) > MaxGoalRunes {
		goal = string(r[:MaxGoalRunes-1]) + "…"
	}
	if strings.TrimSpace(goal) == "" {
		goal = "(empty instruction)"
	}
	return goal
}

// NewRun builds the pipeline of a run for in, replacing whatever run the
// pipeline held (that run's history stays in events.jsonl). generation is
// the controller's fencing generation, recorded so that readers can tell
// which controller wrote the state.
func NewRun(in Instruction, workflow []StepTemplate, generation int) ledger.PipelineState {
	if len(workflow) == 0 {
		workflow = DefaultWorkflow()
	}
	taskID := in.TaskID
	if taskID == "" {
		taskID = TaskIDFor(in.MessageID)
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
		With(keyNextAction, NextDispatch)
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

// MarkQueued records that the step waits for a free slot on its lane.
func MarkQueued(p *ledger.PipelineState, step, lane string) {
	setRoute(p, step, lane, NextQueued)
	p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, stepQueued)
}

// MarkDispatched records that a worker started on step.
func MarkDispatched(p *ledger.PipelineState, step, lane string) {
	p.Status = ledger.StatusExecute
	setRoute(p, step, lane, NextWorking)
	p.RoleLifecycle = p.RoleLifecycle.
		With("lane:"+lane, "active_step:"+step).
		With("step:"+step, string(vocab.StepDispatched.With(lane))).
		With("route:last_node", "dispatch").
		With("route:last_reason", "dispatch_started")
}

// MarkStepCompleted records a finished step; the route stays on it until
// the workflow starts the next one (EnsureStep) or the run ends
// (MarkRunDone).
func MarkStepCompleted(p *ledger.PipelineState, step string) {
	p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, stepCompleted).
		With("route:last_node", "accept").With("route:last_reason", "step_completed")
	p.RoleLifecycle = p.RoleLifecycle.With(keyNextAction, NextDispatch)
}

// MarkRunDone records a run whose workflow finished.
func MarkRunDone(p *ledger.PipelineState) {
	p.Status = ledger.StatusDone
	p.RoleLifecycle = p.RoleLifecycle.With("orchestrator", "transition_complete").
		With("acceptance", "passed").With("controller_ownership", "controller:unassigned")
	setRoute(p, p.CurrentStep, p.RoleLifecycle.Get(keyActiveLane), NextDone)
}

// EnsureStep makes t the current step, appending it after the last step
// when the workflow grows as it runs (a loop adds each iteration's steps
// as they start).
func EnsureStep(p *ledger.PipelineState, t StepTemplate) {
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
	setRoute(p, t.ID, lane, NextDispatch)
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

// MarkStepFailed records a failed step. blocked marks the run BLOCKED
// instead of FAILED: it waits for a person, and reason says why (the
// restart limit, a loop's max iterations, an escalation, the budget),
// each a code of its own that status and the window word differently.
func MarkStepFailed(p *ledger.PipelineState, step, reason string, blocked bool) {
	p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, string(vocab.StepFailed.With(reason))).
		With("route:last_node", "accept").With("route:last_reason", strings.ToLower(reason)).
		With("controller_ownership", "controller:unassigned")
	if blocked {
		p.Status = ledger.StatusBlocked
		setRoute(p, step, p.RoleLifecycle.Get(keyActiveLane), NextAwait)
		return
	}
	p.Status = ledger.StatusFailed
	setRoute(p, step, p.RoleLifecycle.Get(keyActiveLane), NextRetry)
}

// MarkRetry puts a failed or blocked step back on the route.
func MarkRetry(p *ledger.PipelineState, step, lane string) {
	p.Status = ledger.StatusExecute
	if p.RoleLifecycle.Get("step:"+step) != stepCompleted {
		// A completed step stays completed: the workflow goes on after it
		// and never runs it again.
		p.RoleLifecycle = p.RoleLifecycle.With("step:"+step, stepRetryRequested)
	}
	p.RoleLifecycle = p.RoleLifecycle.
		With("controller_ownership", "controller:"+step).
		With("route:last_reason", "retry_requested")
	setRoute(p, step, lane, NextDispatch)
}

// Generation returns the fencing generation recorded in the pipeline (0
// when none).
func Generation(p *ledger.PipelineState) int {
	n, _ := strconv.Atoi(p.RoleLifecycle.Get(keyGeneration))
	return n
}
