package live

import (
	"context"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker/transcript"
)

// Relay is the window's link to the controller. Its methods are the whole
// of what the window may do to the controller: forward what the person
// typed, forward a control request for the controller to decide, observe.
// There is deliberately no way to express execute, route, take over or
// release.
type Relay interface {
	// Forward sends an instruction and returns the controller's Ack,
	// which comes once the instruction is durable in the ledger. While
	// no controller answers it waits (resending after a reconnect)
	// until ctx ends.
	Forward(ctx context.Context, text string) (Ack, error)
	// Control forwards a control request; the controller decides.
	// reason is the person's words after the command (a reject's why).
	Control(ctx context.Context, kind ControlKind, reason string) (Ack, error)
	// Observe subscribes to the controller's notices (once: the relay
	// re-subscribes after a reconnect by itself).
	Observe(ctx context.Context) error
	// Next blocks until the next notice or connection change. It
	// returns ErrClosed once the relay is closed and ctx's error when
	// ctx ends.
	Next(ctx context.Context) (RelayUpdate, error)
}

// ControlKind is a control request the person can forward.
type ControlKind string

// The control requests. The set is closed, like the relay's own.
const (
	ControlCancel ControlKind = "cancel"
	ControlRetry  ControlKind = "retry"
	ControlStatus ControlKind = "status"
	// ControlAbandon drops a run that still waits for its lane.
	ControlAbandon ControlKind = "abandon"
	// ControlAccept and ControlReject answer a step's change that waits
	// for review: the controller merges it, or records the reason.
	ControlAccept ControlKind = "accept"
	ControlReject ControlKind = "reject"
	// ControlIssue files an issue in the team's outbox: "/issue ROLE TITLE".
	ControlIssue ControlKind = "issue"
	// ControlComment, ControlLabel and ControlClose change an issue of
	// the team's outbox: "/comment #N TEXT", "/label #N [-]LABEL",
	// "/close #N [WHY]" (#N may be left out while the issues view shows
	// an issue). "/retry #N" is a "/retry" comment: the Lead's protocol.
	ControlComment ControlKind = "comment"
	ControlLabel   ControlKind = "label"
	ControlClose   ControlKind = "close"
)

// ControlKinds lists the control requests in the order help shows them.
func ControlKinds() []ControlKind {
	return []ControlKind{ControlAccept, ControlReject, ControlCancel, ControlRetry, ControlAbandon, ControlStatus, ControlIssue,
		ControlComment, ControlLabel, ControlClose}
}

// Route is the controller's route summary: the ledger's one route type.
type Route = ledger.Route

// Ack is the controller's answer to a forwarded request.
type Ack struct {
	Route
	Duplicate bool   // the request had been acknowledged before
	EventID   string // the ledger event that recorded it
}

// RunState is one worker run's state and reason code.
type RunState struct {
	TaskID, RunID, StepID, Lane, State, Reason string
}

// OutputLine is one line a worker printed, or the controller said on
// its behalf.
type OutputLine struct {
	TaskID, RunID, StepID, Lane string
	Stream                      string // stdout or stderr
	// Line is the line as the controller worded it; Parts, Reason,
	// Message and Args are what it said before wording, which the window
	// words in its current language (see Text).
	Line    string
	Parts   []transcript.Part
	Reason  string
	Message string
	Args    map[string]string
}

// Text words the line in loc's language (see say.Line). The window
// draws it with its current language, so that a language switch reaches
// the lines already shown.
func (o OutputLine) Text(loc *i18n.Localizer) string {
	return say.Line{Text: o.Line, Parts: o.Parts, Reason: o.Reason, Message: o.Message, Args: o.Args}.Words(loc)
}

// ControllerDiskFull is the controller's state while its ledger's disk
// is full: ledger writes are held and retried, new instructions refused.
const ControllerDiskFull = string(vocab.ControllerDiskFull)

// ControllerState is the controller's own state.
type ControllerState struct {
	State  string
	PID    int
	Reason string
}

// Status is a full view: the route, the runs, the controller.
type Status struct {
	Route      Route
	Runs       []RunState
	Controller ControllerState
}

// ConnPhase is the state of the window's connection to the controller.
type ConnPhase int

// Connection phases.
const (
	ConnConnecting ConnPhase = iota
	ConnConnected
	ConnDisconnected
	ConnReconnecting
	ConnClosed
)

// ConnState is one change of the connection.
type ConnState struct {
	Phase   ConnPhase
	Attempt int           // failed attempts in a row (reconnecting)
	Delay   time.Duration // wait before the next attempt (reconnecting)
	Err     error         // why it dropped or failed
}

// RelayUpdate is one thing the relay reports; exactly one field is set.
type RelayUpdate struct {
	Conn       *ConnState
	Route      *Route
	Run        *RunState
	Output     *OutputLine
	Controller *ControllerState
	Status     *Status
	// Dropped counts notices the relay lost because the window read
	// too slowly (worker output goes first).
	Dropped int
}

// Error is a relay failure named by a stable code (the relay's wire and
// client codes: unavailable, timeout, closed, forbidden_action, …), which
// the window shows in the person's language.
type Error struct {
	Code   string
	Detail string
	Err    error
}

// Error implements error.
func (e *Error) Error() string {
	s := "relay: " + e.Code
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
