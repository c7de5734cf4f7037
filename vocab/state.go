package vocab

import "github.com/daokit/daokit/i18n"

// RunState is the state of one worker run. Every run goes
//
//	idle → waiting → requesting → generating → persisting → completed
//
// or leaves that path for failed, cancelled or timedOut; those four are
// terminal. The values are stored in ledger payloads and relay messages
// as they are.
type RunState string

// The run states.
const (
	// StateIdle: the run exists but has not asked for a lane slot.
	StateIdle RunState = "idle"
	// StateWaiting: queued for a slot of its lane.
	StateWaiting RunState = "waiting"
	// StateRequesting: holds a slot; the controller is taking the lease
	// and starting the worker.
	StateRequesting RunState = "requesting"
	// StateGenerating: the worker is running.
	StateGenerating RunState = "generating"
	// StatePersisting: the worker has ended; its outcome is being
	// recorded.
	StatePersisting RunState = "persisting"
	// StateCompleted: the worker did the work and it was recorded.
	StateCompleted RunState = "completed"
	// StateFailed: the run failed; a reason code says why.
	StateFailed RunState = "failed"
	// StateCancelled: a person, the owner or a shutdown stopped the run.
	StateCancelled RunState = "cancelled"
	// StateTimedOut: the lane's time limit ended the worker.
	StateTimedOut RunState = "timedOut"
)

// RunStates lists every run state in path order, terminal states last.
func RunStates() []RunState {
	return []RunState{StateIdle, StateWaiting, StateRequesting, StateGenerating, StatePersisting,
		StateCompleted, StateFailed, StateCancelled, StateTimedOut}
}

// Label returns s in loc's language; an unknown state is shown as it is.
func (s RunState) Label(loc *i18n.Localizer) string { return label(loc, StateCatalog, RunStates(), s) }

// Status is a pipeline's status (pipeline_state.json "status"), the
// Python tool's word for where a task stands.
type Status string

// The pipeline statuses.
const (
	StatusPlanning Status = "PLANNING"
	StatusAnalysis Status = "ANALYSIS"
	StatusFreeze   Status = "FREEZE"
	StatusExecute  Status = "EXECUTE"
	StatusAccept   Status = "ACCEPT"
	StatusDone     Status = "DONE"
	StatusDraining Status = "DRAINING"
	// StatusBlocked: the run waits for a person; its reason code says
	// why (the restart limit, max iterations, an escalation, the budget).
	StatusBlocked Status = "BLOCKED"
	StatusFailed  Status = "FAILED"
)

// Statuses lists every pipeline status.
func Statuses() []Status {
	return []Status{StatusPlanning, StatusAnalysis, StatusFreeze, StatusExecute, StatusAccept, StatusDone,
		StatusDraining, StatusBlocked, StatusFailed}
}

// Label returns s in loc's language; an unknown status is shown as it is.
func (s Status) Label(loc *i18n.Localizer) string { return label(loc, StatusCatalog, Statuses(), s) }

// Health is a liveness word: the heartbeat's status
// (heartbeat_status.json) and the evaluator's verdict on a worker.
type Health string

// The health words. RUNNING is how ACTIVE is stored in the heartbeat
// file.
const (
	HealthIdle    Health = "IDLE"
	HealthRunning Health = "RUNNING"
	HealthActive  Health = "ACTIVE"
	HealthWarning Health = "WARNING"
	HealthStale   Health = "STALE"
	// HealthBlocked: no worker runs and the current run waits for a
	// person; the heartbeat's reason code says why.
	HealthBlocked Health = "BLOCKED"
	HealthUnknown Health = "UNKNOWN"
)

// Healths lists every health word.
func Healths() []Health {
	return []Health{HealthIdle, HealthRunning, HealthActive, HealthWarning, HealthStale, HealthBlocked, HealthUnknown}
}

// Label returns h in loc's language; an unknown word is shown as it is.
func (h Health) Label(loc *i18n.Localizer) string { return label(loc, HealthCatalog, Healths(), h) }

// Next is the next action of a route: what happens next to a run, stored
// under route:next_action and sent in every route summary.
type Next string

// The next actions.
const (
	NextDispatch Next = "dispatch"        // the step is about to start
	NextQueued   Next = "wait_for_lane"   // the lane is busy; the step waits its turn
	NextWorking  Next = "wait_for_worker" // a worker is on the step
	NextDone     Next = "none"            // the run is finished
	NextRetry    Next = "retry_or_cancel" // the step failed; a person decides
	NextAwait    Next = "await_user"      // the run is blocked and waits for a person
	NextReview   Next = "review"          // a step's change waits for /accept or /reject
	NextResume   Next = "resume"          // the Python tool's: the run resumes
	NextComplete Next = "complete"        // the Python tool's: the run completes
)

// Nexts lists every next action.
func Nexts() []Next {
	return []Next{NextDispatch, NextQueued, NextWorking, NextDone, NextRetry, NextAwait, NextReview, NextResume, NextComplete}
}

// Label returns n in loc's language; an unknown action is shown as it is.
func (n Next) Label(loc *i18n.Localizer) string { return label(loc, NextCatalog, Nexts(), n) }

// ControllerState is the controller's own state as the windows see it
// (the relay's controller notice and the window's link to it).
type ControllerState string

// The controller states.
const (
	// ControllerStarting: the window is starting a controller.
	ControllerStarting ControllerState = "starting"
	// ControllerReady: the controller answers and records.
	ControllerReady ControllerState = "ready"
	// ControllerStopping: the controller is shutting down.
	ControllerStopping ControllerState = "stopping"
	// ControllerDiskFull: the ledger's disk is full; the controller holds
	// its writes and refuses new instructions.
	ControllerDiskFull ControllerState = "disk_full"
)

// ControllerStates lists every controller state.
func ControllerStates() []ControllerState {
	return []ControllerState{ControllerStarting, ControllerReady, ControllerStopping, ControllerDiskFull}
}
