package link

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/live"
)

// Update follows one message. It reports whether the state changed (the
// root then tells the panes) and returns any command to run.
func (m *Model) Update(ctx context.Context, msg tea.Msg) (changed bool, cmd tea.Cmd) {
	before := m.st
	switch msg := msg.(type) {
	case live.TickMsg:
		m.st.Now = msg.Now
		// Only phases that show a running clock need a redraw.
		return m.st.Phase == Waiting || m.st.Phase == Starting || m.st.Phase == Lost, nil
	case live.ProbedMsg:
		cmd = m.probed(ctx, msg)
	case live.StartedMsg:
		cmd = m.started(ctx, msg)
	case live.ExitedMsg:
		m.exited(msg)
	case live.RelayMsg:
		m.relay(msg.Update)
	default:
		return false, nil
	}
	return !sameState(before, m.st), cmd
}

func sameState(a, b State) bool {
	return a.Phase == b.Phase && a.PID == b.PID && a.Controller == b.Controller && a.Startable == b.Startable &&
		a.Since == b.Since && a.Conn == b.Conn && a.Exit == b.Exit && a.Err == b.Err
}

func (m *Model) enter(p Phase) {
	if m.st.Phase != p {
		m.st.Phase, m.st.Since = p, m.st.Now
	}
}

func (m *Model) probed(ctx context.Context, msg live.ProbedMsg) tea.Cmd {
	if m.st.Phase != Probing {
		return nil // the relay connected first
	}
	switch {
	case msg.Err != nil:
		m.st.Err = msg.Err
		m.enter(Failed)
		return nil
	case msg.Probe.Live:
		m.st.PID = msg.Probe.PID
		m.enter(Connecting)
		return nil
	}
	return m.start(ctx)
}

// Start starts a new controller at the person's request, when CanStart.
func (m *Model) Start(ctx context.Context) tea.Cmd {
	if !m.st.CanStart() || m.ctrl == nil {
		return nil
	}
	return m.start(ctx)
}

func (m *Model) start(ctx context.Context) tea.Cmd {
	if m.ctrl == nil {
		return nil
	}
	m.st.Err, m.st.Exit = nil, live.Exit{}
	m.enter(Starting)
	return live.StartController(ctx, m.ctrl)
}

func (m *Model) started(ctx context.Context, msg live.StartedMsg) tea.Cmd {
	if msg.Err != nil {
		m.st.Err = msg.Err
		m.enter(Failed)
		return nil
	}
	m.child = msg.Proc.PID()
	m.st.PID = m.child
	if m.st.Phase == Starting {
		m.enter(Waiting)
	}
	return live.WaitExit(ctx, msg.Proc)
}

func (m *Model) exited(msg live.ExitedMsg) {
	if msg.Err != nil || msg.PID != m.child {
		return // the window is closing, or an older child
	}
	m.child = 0
	m.st.Exit = msg.Exit
	switch m.st.Phase {
	case Waiting, Starting, Connecting:
		m.enter(Exited)
	case Connected, Lost:
		// The relay reports the drop too; the exit says why.
		m.enter(Exited)
	}
}

func (m *Model) relay(u live.RelayUpdate) {
	switch {
	case u.Conn != nil:
		m.conn(*u.Conn)
	case u.Controller != nil:
		m.controller(*u.Controller)
	case u.Status != nil:
		m.controller(u.Status.Controller)
	}
}

func (m *Model) controller(c live.ControllerState) {
	if c.PID > 0 {
		m.st.PID = c.PID
	}
	m.st.Controller = c.State
}

func (m *Model) conn(c live.ConnState) {
	m.st.Conn = c
	switch c.Phase {
	case live.ConnConnected:
		m.st.Err, m.st.Exit = nil, live.Exit{}
		m.enter(Connected)
	case live.ConnDisconnected, live.ConnReconnecting:
		if c.Err != nil {
			m.st.Err = c.Err
		}
		if m.st.Phase == Connected {
			m.st.Controller = ""
			m.enter(Lost)
		}
	}
}
