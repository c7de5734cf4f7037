package link

import (
	"context"
	"time"

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
		if cmd := m.tick(ctx); cmd != nil {
			return true, cmd
		}
		// Only phases that show a running clock need a redraw.
		return m.st.Phase == Waiting || m.st.Phase == Starting || m.st.Phase == Lost || !m.st.Retry.IsZero(), nil
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
		a.Since == b.Since && a.Conn == b.Conn && a.Exit.Same(b.Exit) && a.Err == b.Err &&
		a.Retry == b.Retry && a.Tries == b.Tries && a.GaveUp == b.GaveUp
}

func (m *Model) enter(p Phase) {
	if m.st.Phase != p {
		m.st.Phase, m.st.Since = p, m.st.Now
	}
	switch p {
	case Lost, Exited, Failed:
		m.plan()
	}
}

// plan schedules the next automatic start after the controller went
// away, or gives up when the starts are used up.
func (m *Model) plan() {
	if !m.st.Startable || m.ctrl == nil || !m.st.Retry.IsZero() || m.st.ConfigBroken() {
		return
	}
	if m.st.Tries >= MaxAutoStarts {
		m.st.GaveUp = true
		return
	}
	m.st.Retry = m.st.Now.Add(autoStarts.Delay(m.st.Tries))
}

// tick starts the planned successor when its time has come (a lost
// controller is probed first: it may only be slow), and forgets the
// count of automatic starts once a controller has stayed up.
func (m *Model) tick(ctx context.Context) tea.Cmd {
	if m.st.Phase == Connected && m.st.Tries > 0 && m.st.Elapsed() >= stableAfter {
		m.st.Tries, m.st.GaveUp = 0, false
	}
	if m.st.Retry.IsZero() || m.st.Now.Before(m.st.Retry) {
		return nil
	}
	m.st.Retry = time.Time{}
	switch m.st.Phase {
	case Lost:
		m.st.Tries++
		m.probing = true
		return live.ProbeController(ctx, m.ctrl)
	case Exited, Failed:
		m.st.Tries++
		return m.start(ctx)
	}
	return nil
}

func (m *Model) probed(ctx context.Context, msg live.ProbedMsg) tea.Cmd {
	if m.probing {
		m.probing = false
		return m.reprobed(ctx, msg)
	}
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

// reprobed decides after an automatic probe of a lost controller: one
// that is still alive is waited for (the relay reconnects; another try
// is planned), a dead one gets a successor.
func (m *Model) reprobed(ctx context.Context, msg live.ProbedMsg) tea.Cmd {
	if m.st.Phase != Lost {
		return nil // the relay reconnected meanwhile
	}
	if msg.Err == nil && msg.Probe.Live {
		m.plan()
		return nil
	}
	return m.start(ctx)
}

// Start starts a new controller at the person's request, when CanStart.
// The automatic starts count from zero again.
func (m *Model) Start(ctx context.Context) tea.Cmd {
	if !m.st.CanStart() || m.ctrl == nil {
		return nil
	}
	m.st.Tries, m.st.GaveUp = 0, false
	return m.start(ctx)
}

func (m *Model) start(ctx context.Context) tea.Cmd {
	if m.ctrl == nil {
		return nil
	}
	m.st.Err, m.st.Exit, m.st.Retry = nil, live.Exit{}, time.Time{}
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
		m.st.Retry, m.st.GaveUp, m.probing = time.Time{}, false, false
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
