package controller

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
)

// The run states (see vocab.RunState, where they are declared with their
// labels). Every worker run goes
//
//	idle → waiting → requesting → generating → persisting → completed
//
// or leaves that path for failed, cancelled or timedOut; those four are
// terminal. The values are stored in ledger payloads and relay messages as
// they are (plain strings, like http.Method*).
const (
	stateIdle       = string(vocab.StateIdle)
	stateWaiting    = string(vocab.StateWaiting)
	stateRequesting = string(vocab.StateRequesting)
	stateGenerating = string(vocab.StateGenerating)
	statePersisting = string(vocab.StatePersisting)
	stateCompleted  = string(vocab.StateCompleted)
	stateFailed     = string(vocab.StateFailed)
	stateCancelled  = string(vocab.StateCancelled)
	stateTimedOut   = string(vocab.StateTimedOut)
)

// transitions is the whole state machine: the states each state may move
// to. A run can fail or be cancelled from any state that is not terminal,
// so that every run can always end; it can only time out once its worker
// was asked for, because the wait for a lane slot is not part of the
// lane's time limit; and only a run whose outcome is being recorded can
// complete. A restart is a new run, so there is no way back: every run
// ends after at most five transitions.
var transitions = map[string][]string{
	stateIdle:       {stateWaiting, stateFailed, stateCancelled},
	stateWaiting:    {stateRequesting, stateFailed, stateCancelled},
	stateRequesting: {stateGenerating, stateFailed, stateCancelled, stateTimedOut},
	stateGenerating: {statePersisting, stateFailed, stateCancelled, stateTimedOut},
	statePersisting: {stateCompleted, stateFailed, stateCancelled, stateTimedOut},
}

// isTerminal reports whether s is a terminal state: completed, failed,
// cancelled or timedOut.
func isTerminal(s string) bool {
	return s == stateCompleted || s == stateFailed || s == stateCancelled || s == stateTimedOut
}

// canTransition reports whether a run may move from one state to another.
func canTransition(from, to string) bool { return slices.Contains(transitions[from], to) }

// errIllegalTransition is matched (errors.Is) by every *transitionError.
var errIllegalTransition = errors.New("illegal run transition")

// transitionError is a refused state change.
type transitionError struct {
	Owner    Owner
	From, To string
}

// Error implements error, in English for logs; people get Localize.
func (e *transitionError) Error() string {
	return fmt.Sprintf("run %s: %v: %s → %s", e.Owner, errIllegalTransition, e.From, e.To)
}

// Localize renders the error in loc's language.
func (e *transitionError) Localize(loc *i18n.Localizer) string {
	return loc.T("controller.error.illegal_transition", "From", e.From, "To", e.To)
}

// Is makes errors.Is(err, errIllegalTransition) true.
func (e *transitionError) Is(target error) bool { return target == errIllegalTransition }

// checkTransition returns a *transitionError (without an owner) unless
// from → to is legal.
func checkTransition(from, to string) error {
	if canTransition(from, to) {
		return nil
	}
	return &transitionError{From: from, To: to}
}

// Owner identifies who a run belongs to: exactly one step of one run of
// one task. The ledger's events and leases carry the same three ids.
type Owner struct {
	TaskID, RunID, StepID string
}

// String returns "task/run/step".
func (o Owner) String() string { return o.TaskID + "/" + o.RunID + "/" + o.StepID }

// Valid reports whether every id is set.
func (o Owner) Valid() bool { return o.TaskID != "" && o.RunID != "" && o.StepID != "" }

// errNoOwner is returned by newLifecycle for an Owner with an empty id.
var errNoOwner = errors.New("run has no complete owner (task_id, run_id, step_id)")

// transition is one recorded state change.
type transition struct {
	From, To string
	// Reason is the stable reason code of the change ("" when none, as
	// for the steps of the normal path).
	Reason string
	At     time.Time
}

// lifecycle is one worker run's state machine: its owner, its state and
// the transitions that led there. It refuses illegal transitions, so a
// run never leaves a terminal state and ends in exactly one. A lifecycle
// is safe for concurrent use: its state is one immutable snapshot,
// published atomically, which the run's goroutine replaces and anyone
// (the status, the liveness loop) reads without a lock.
type lifecycle struct {
	owner Owner
	now   func() time.Time
	snap  atomic.Pointer[lifeSnap]
	done  chan struct{}
}

// lifeSnap is a lifecycle at one moment; never changed once published.
type lifeSnap struct {
	state   string
	history []transition
}

// newLifecycle returns a run in stateIdle owned by owner. now is the
// clock for transition times; nil means time.Now.
func newLifecycle(owner Owner, now func() time.Time) (*lifecycle, error) {
	if !owner.Valid() {
		return nil, fmt.Errorf("new run %s: %w", owner, errNoOwner)
	}
	if now == nil {
		now = time.Now
	}
	l := &lifecycle{owner: owner, now: now, done: make(chan struct{})}
	l.snap.Store(&lifeSnap{state: stateIdle})
	return l, nil
}

// Owner returns the run's owner.
func (l *lifecycle) Owner() Owner { return l.owner }

// State returns the current state.
func (l *lifecycle) State() string { return l.snap.Load().state }

// To moves the run to state to, recording reason. An illegal move is a
// *transitionError and changes nothing. Failing needs a reason; a cancel
// or timeout without one gets WORKER_CANCELLED or WORKER_TIMEOUT. Of two
// moves at once, one wins and the other is judged from where it left
// the run.
func (l *lifecycle) To(to, reason string) error {
	switch {
	case to == stateFailed && reason == "":
		if err := checkTransition(l.State(), to); err != nil {
			err.(*transitionError).Owner = l.owner
			return err
		}
		return fmt.Errorf("run %s: fail: %w", l.owner, errNoReason)
	case to == stateCancelled && reason == "":
		reason = ReasonCancelled
	case to == stateTimedOut && reason == "":
		reason = ReasonTimeout
	}
	for {
		old := l.snap.Load()
		if err := checkTransition(old.state, to); err != nil {
			err.(*transitionError).Owner = l.owner
			return err
		}
		next := &lifeSnap{state: to, history: append(slices.Clip(old.history), transition{From: old.state, To: to, Reason: reason, At: l.now()})}
		if l.snap.CompareAndSwap(old, next) {
			if isTerminal(to) {
				close(l.done)
			}
			return nil
		}
	}
}

// errNoReason is returned by Lifecycle.To for a failure without a reason.
var errNoReason = errors.New("a failed run needs a reason code")

// Current returns the state and the reason code of the transition that
// led to it ("" in stateIdle).
func (l *lifecycle) Current() (state, reason string) {
	s := l.snap.Load()
	if len(s.history) == 0 {
		return s.state, ""
	}
	return s.state, s.history[len(s.history)-1].Reason
}

// History returns the transitions so far, oldest first.
func (l *lifecycle) History() []transition { return slices.Clone(l.snap.Load().history) }

// Done is closed when the run reaches its terminal state.
func (l *lifecycle) Done() <-chan struct{} { return l.done }

// Outcome returns the terminal state and its reason, or ok false while
// the run is not over.
func (l *lifecycle) Outcome() (state, reason string, ok bool) {
	s := l.snap.Load()
	if !isTerminal(s.state) {
		return "", "", false
	}
	last := s.history[len(s.history)-1]
	return last.To, last.Reason, true
}
