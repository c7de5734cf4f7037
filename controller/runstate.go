package controller

import (
	"errors"
	"fmt"
	"slices"
	"sync"
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
	StateIdle       = string(vocab.StateIdle)
	StateWaiting    = string(vocab.StateWaiting)
	StateRequesting = string(vocab.StateRequesting)
	StateGenerating = string(vocab.StateGenerating)
	StatePersisting = string(vocab.StatePersisting)
	StateCompleted  = string(vocab.StateCompleted)
	StateFailed     = string(vocab.StateFailed)
	StateCancelled  = string(vocab.StateCancelled)
	StateTimedOut   = string(vocab.StateTimedOut)
)

// transitions is the whole state machine: the states each state may move
// to. A run can fail or be cancelled from any state that is not terminal,
// so that every run can always end; it can only time out once its worker
// was asked for, because the wait for a lane slot is not part of the
// lane's time limit; and only a run whose outcome is being recorded can
// complete. A restart is a new run, so there is no way back: every run
// ends after at most five transitions.
var transitions = map[string][]string{
	StateIdle:       {StateWaiting, StateFailed, StateCancelled},
	StateWaiting:    {StateRequesting, StateFailed, StateCancelled},
	StateRequesting: {StateGenerating, StateFailed, StateCancelled, StateTimedOut},
	StateGenerating: {StatePersisting, StateFailed, StateCancelled, StateTimedOut},
	StatePersisting: {StateCompleted, StateFailed, StateCancelled, StateTimedOut},
}

// IsTerminal reports whether s is a terminal state: completed, failed,
// cancelled or timedOut.
func IsTerminal(s string) bool {
	return s == StateCompleted || s == StateFailed || s == StateCancelled || s == StateTimedOut
}

// CanTransition reports whether a run may move from one state to another.
func CanTransition(from, to string) bool { return slices.Contains(transitions[from], to) }

// ErrIllegalTransition is matched (errors.Is) by every *TransitionError.
var ErrIllegalTransition = errors.New("illegal run transition")

// TransitionError is a refused state change.
type TransitionError struct {
	Owner    Owner
	From, To string
}

// Error implements error, in English for logs; people get Localize.
func (e *TransitionError) Error() string {
	return fmt.Sprintf("run %s: %v: %s → %s", e.Owner, ErrIllegalTransition, e.From, e.To)
}

// Localize renders the error in loc's language.
func (e *TransitionError) Localize(loc *i18n.Localizer) string {
	return loc.T("controller.error.illegal_transition", "From", e.From, "To", e.To)
}

// Is makes errors.Is(err, ErrIllegalTransition) true.
func (e *TransitionError) Is(target error) bool { return target == ErrIllegalTransition }

// checkTransition returns a *TransitionError (without an owner) unless
// from → to is legal.
func checkTransition(from, to string) error {
	if CanTransition(from, to) {
		return nil
	}
	return &TransitionError{From: from, To: to}
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

// ErrNoOwner is returned by NewLifecycle for an Owner with an empty id.
var ErrNoOwner = errors.New("run has no complete owner (task_id, run_id, step_id)")

// Transition is one recorded state change.
type Transition struct {
	From, To string
	// Reason is the stable reason code of the change ("" when none, as
	// for the steps of the normal path).
	Reason string
	At     time.Time
}

// Lifecycle is one worker run's state machine: its owner, its state and
// the transitions that led there. It refuses illegal transitions, so a
// run never leaves a terminal state and ends in exactly one. A Lifecycle
// is safe for concurrent use.
type Lifecycle struct {
	owner Owner
	now   func() time.Time

	mu      sync.Mutex
	state   string
	history []Transition
	done    chan struct{}
}

// NewLifecycle returns a run in StateIdle owned by owner. now is the
// clock for transition times; nil means time.Now.
func NewLifecycle(owner Owner, now func() time.Time) (*Lifecycle, error) {
	if !owner.Valid() {
		return nil, fmt.Errorf("new run %s: %w", owner, ErrNoOwner)
	}
	if now == nil {
		now = time.Now
	}
	return &Lifecycle{owner: owner, now: now, state: StateIdle, done: make(chan struct{})}, nil
}

// Owner returns the run's owner.
func (l *Lifecycle) Owner() Owner { return l.owner }

// State returns the current state.
func (l *Lifecycle) State() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// To moves the run to state to, recording reason. An illegal move is a
// *TransitionError and changes nothing. Failing needs a reason; a cancel
// or timeout without one gets WORKER_CANCELLED or WORKER_TIMEOUT.
func (l *Lifecycle) To(to, reason string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := checkTransition(l.state, to); err != nil {
		err.(*TransitionError).Owner = l.owner
		return err
	}
	switch {
	case to == StateFailed && reason == "":
		return fmt.Errorf("run %s: fail: %w", l.owner, ErrNoReason)
	case to == StateCancelled && reason == "":
		reason = ReasonCancelled
	case to == StateTimedOut && reason == "":
		reason = ReasonTimeout
	}
	l.history = append(l.history, Transition{From: l.state, To: to, Reason: reason, At: l.now()})
	l.state = to
	if IsTerminal(to) {
		close(l.done)
	}
	return nil
}

// ErrNoReason is returned by Lifecycle.To for a failure without a reason.
var ErrNoReason = errors.New("a failed run needs a reason code")

// Current returns the state and the reason code of the transition that
// led to it ("" in StateIdle).
func (l *Lifecycle) Current() (state, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.history) == 0 {
		return l.state, ""
	}
	return l.state, l.history[len(l.history)-1].Reason
}

// History returns the transitions so far, oldest first.
func (l *Lifecycle) History() []Transition {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.history)
}

// Done is closed when the run reaches its terminal state.
func (l *Lifecycle) Done() <-chan struct{} { return l.done }

// Outcome returns the terminal state and its reason, or ok false while
// the run is not over.
func (l *Lifecycle) Outcome() (state, reason string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !IsTerminal(l.state) {
		return "", "", false
	}
	last := l.history[len(l.history)-1]
	return last.To, last.Reason, true
}
