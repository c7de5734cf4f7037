// Package link follows the window's link to its controller: whether a
// live controller owns the root, starting one as a child when none does,
// waiting for its socket, the relay connection, and what to say when the
// controller goes away. It only observes and starts; the controller that
// comes up decides and performs any takeover itself.
package link

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/tui/live"
)

// Phase is where the link stands.
type Phase int

// Phases of the link.
const (
	// Watching: read-only window, no controller wanted.
	Watching Phase = iota
	// Probing: looking for a live controller of the root.
	Probing
	// Connecting: a live controller exists; the relay is connecting.
	Connecting
	// Starting: asking the system to start a controller child.
	Starting
	// Waiting: a child controller runs; the relay waits for its socket.
	Waiting
	// Connected: the relay talks to the controller.
	Connected
	// Lost: the connection dropped; the relay reconnects with backoff.
	Lost
	// Exited: the controller the window started has exited.
	Exited
	// Failed: the window could not look for or start a controller.
	Failed
)

// String returns the phase's catalog key suffix.
func (p Phase) String() string {
	switch p {
	case Watching:
		return "watching"
	case Probing:
		return "probing"
	case Connecting:
		return "connecting"
	case Starting:
		return "starting"
	case Waiting:
		return "waiting"
	case Connected:
		return "connected"
	case Lost:
		return "lost"
	case Exited:
		return "exited"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// State is what the status bar and the banner show of the link.
type State struct {
	Phase Phase
	// PID is the controller's process id, when known.
	PID int
	// Controller is the controller's own state word (starting, ready,
	// stopping), from its notices.
	Controller string
	// Since is when the phase began; Now is the latest tick.
	Since, Now time.Time
	// Conn is the relay's latest connection state.
	Conn live.ConnState
	// Exit describes how the window's child controller ended (Exited).
	Exit live.Exit
	// Err is why the link failed or dropped.
	Err error
	// Startable says the window may start controllers (not read-only,
	// not --no-start).
	Startable bool
	// Retry is when the window starts a successor by itself (zero: no
	// start is planned); Tries counts the automatic starts since the
	// last controller that stayed up, at most MaxAutoStarts. GaveUp says
	// they are used up: only the person's key starts another.
	Retry  time.Time
	Tries  int
	GaveUp bool
}

// MaxAutoStarts bounds the successors the window starts by itself before
// it leaves the decision to the person: a controller that dies at once
// every time must not be restarted forever.
const MaxAutoStarts = 5

// autoStarts is the backoff of the automatic starts: the first waits a
// second, each next one twice as long, up to 30 seconds.
var autoStarts = backoff.Capped{Base: time.Second, Max: 30 * time.Second}

// stableAfter is how long a controller must stay connected before its
// automatic starts count from zero again.
const stableAfter = 30 * time.Second

// RetryIn is how long until the planned automatic start.
func (s State) RetryIn() time.Duration {
	if s.Retry.IsZero() || !s.Now.Before(s.Retry) {
		return 0
	}
	return s.Retry.Sub(s.Now)
}

// stuckAfter is how long a live controller may fail to answer before the
// window offers to start another (which will fail on the root's lock if
// the old one still holds it, and say so).
const stuckAfter = 10 * time.Second

// CanStart reports whether the person may start a new controller now: no
// controller answers and none is on its way.
func (s State) CanStart() bool {
	if !s.Startable {
		return false
	}
	switch s.Phase {
	case Lost, Exited, Failed:
		return true
	case Connecting:
		return s.Elapsed() >= stuckAfter
	}
	return false
}

// ConfigBroken reports that the controller exited for problems of
// daokit.toml: starting another cannot help until the person fixes the
// file (and presses the start key).
func (s State) ConfigBroken() bool { return s.Phase == Exited && len(s.Exit.Config) > 0 }

// Elapsed is how long the phase has lasted.
func (s State) Elapsed() time.Duration {
	if s.Since.IsZero() || s.Now.Before(s.Since) {
		return 0
	}
	return s.Now.Sub(s.Since)
}

// StateMsg tells panes that the link changed.
type StateMsg struct {
	State State
}

// Model follows the link. It is not a pane: the root feeds it messages
// and shows its State through the status bar and the banner.
type Model struct {
	st    State
	ctrl  live.Controllers
	child int // pid of the child the window started, 0 if none
	// probing is set while an automatic probe of a lost controller is
	// out: its answer decides whether a successor is needed.
	probing bool
}

// New returns the link of a window. With no Controllers (read-only, or a
// test) it only reports the relay's connection.
func New(ctrl live.Controllers, readOnly bool, now time.Time) *Model {
	m := &Model{ctrl: ctrl}
	m.st.Phase, m.st.Since, m.st.Now = Probing, now, now
	m.st.Startable = ctrl != nil && !readOnly
	switch {
	case readOnly:
		m.st.Phase = Watching
	case ctrl == nil:
		// Not allowed to start one: wait for whatever controller comes.
		m.st.Phase = Connecting
	}
	return m
}

// State returns the link's state.
func (m *Model) State() State { return m.st }

// Init starts looking for a controller. ctx bounds the commands.
func (m *Model) Init(ctx context.Context) tea.Cmd {
	if m.st.Phase != Probing || m.ctrl == nil {
		return nil
	}
	return live.ProbeController(ctx, m.ctrl)
}
