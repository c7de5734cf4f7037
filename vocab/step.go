package vocab

import (
	"strings"

	"github.com/daokit/daokit/i18n"
)

// StepState is where one step stands: the value of the pipeline's
// role_lifecycle "step:<id>", as the Python tool and daokit store it. A
// stored value is a state, alone or followed by ':' and an argument: a
// lane (dispatched:coder, owned_by_lane:coder, lease_released:coder) or,
// lower-cased, why (failed:max_iterations_reached,
// taken_over:HEARTBEAT_STALE). The constants are the states; Label words
// a whole stored value.
type StepState string

// The step states.
const (
	// StepOwnedByLane: a lane's active lease holds the step (its
	// argument: the lane).
	StepOwnedByLane StepState = "owned_by_lane"
	// StepLeaseReleased: the lane released its lease on the step.
	StepLeaseReleased StepState = "lease_released"
	// StepLeaseExpired: the lane's lease on the step expired.
	StepLeaseExpired StepState = "lease_expired"
	// StepLeaseTakenOver: the controller took the lane's lease on the
	// step from a stale holder.
	StepLeaseTakenOver StepState = "lease_taken_over"
	// StepFailedNonAdopted: a takeover found the step's lease not
	// adoptable, so the step failed.
	StepFailedNonAdopted StepState = "failed_non_adopted_lease"
	// StepQueued: the step waits for its lane.
	StepQueued StepState = "queued"
	// StepDispatched: a worker of the lane (the argument) runs the step.
	StepDispatched StepState = "dispatched"
	// StepCompleted: the step's worker did the work.
	StepCompleted StepState = "completed"
	// StepFailed: the step failed; the argument is its reason code,
	// lower-cased.
	StepFailed StepState = "failed"
	// StepRetryRequested: a person asked for the step to run again.
	StepRetryRequested StepState = "retry_requested"
	// StepReviewPending: the step's change waits for /accept or /reject.
	StepReviewPending StepState = "review_pending"
	// StepTakenOver: the controller stopped a stale worker and adopted
	// the step (the argument: why).
	StepTakenOver StepState = "taken_over"
	// StepAccepted, StepDone, StepPassed and StepVerified are the Python
	// tool's finished states, which its handoff rules treat as accepted.
	StepAccepted StepState = "accepted"
	StepDone     StepState = "done"
	StepPassed   StepState = "passed"
	StepVerified StepState = "verified"
)

// StepCatalog is the message id prefix of the step states' labels.
const StepCatalog = "vocab.step."

// StepStates lists every step state.
func StepStates() []StepState {
	return []StepState{StepOwnedByLane, StepLeaseReleased, StepLeaseExpired, StepLeaseTakenOver, StepFailedNonAdopted, StepQueued,
		StepDispatched, StepCompleted, StepFailed, StepRetryRequested, StepReviewPending, StepTakenOver,
		StepAccepted, StepDone, StepPassed, StepVerified}
}

// Split returns the state of a stored value and its argument ("" when it
// has none).
func (s StepState) Split() (StepState, string) {
	state, arg, _ := strings.Cut(string(s), ":")
	return StepState(state), arg
}

// With returns the stored value of state s with arg (a lane, or a reason
// code, which is stored lower-cased as the Python tool does).
func (s StepState) With(arg string) StepState {
	if s == StepFailed {
		arg = strings.ToLower(arg)
	}
	return StepState(string(s) + ":" + arg)
}

// Known reports whether the stored value's state is one of StepStates.
func (s StepState) Known() bool {
	state, _ := s.Split()
	for _, k := range StepStates() {
		if k == state {
			return true
		}
	}
	return false
}

// Label returns the stored value s in loc's language: its state's label
// and, when its argument says why (a reason code or an event type), why
// in words (failed:max_iterations_reached reads "failed: max iterations
// reached"). A lane argument is left to the stored value, which callers
// show beside the label where there is room (dispatched:coder reads
// "running"). A value of an unknown state is shown as it is.
func (s StepState) Label(loc *i18n.Localizer) string {
	state, arg := s.Split()
	if !s.Known() {
		return string(s)
	}
	l := loc.T(StepCatalog + string(state))
	if why := Reason(strings.ToUpper(arg)); why.Known() {
		return loc.T(StepCatalog+"because", "State", l, "Why", why.Label(loc))
	}
	if ev := EventType(strings.ToUpper(arg)); ev.Known() {
		return loc.T(StepCatalog+"because", "State", l, "Why", ev.Label(loc))
	}
	return l
}
