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
