// Package statusbar draws the one-line status bar: the controller's
// state and pid, the connection, the facts the relay context's self-check
// found missing, and the language. (The relay context's figures are in
// the full help, where there is room to say what they mean.)
package statusbar

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Model is the status bar.
type Model struct {
	env     *component.Env
	w       int
	memo    component.Memo
	link    link.State
	missing []compact.Fact
}

// FactsMsg tells the bar which of the relay context's five facts its
// latest self-check found missing (none: the mark goes).
type FactsMsg struct {
	Missing []compact.Fact
}

var _ component.Component = (*Model)(nil)

// New returns a status bar.
func New(env *component.Env) *Model { return &Model{env: env} }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements component.Component; the bar is one line.
func (m *Model) SetSize(w, _ int) {
	m.w = w
	m.memo.Invalidate()
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.env = msg.Env
	case link.StateMsg:
		m.link = msg.State
	case FactsMsg:
		m.missing = msg.Missing
	default:
		return m, nil
	}
	m.memo.Invalidate()
	return m, nil
}

// View implements tea.Model.
func (m *Model) View() string { return m.memo.Get(m.render) }

func (m *Model) render() string {
	env := m.env
	st := env.Styles
	sep := st.Status.Bar.Render(st.Glyphs.Sep)
	parts := []string{m.controller(), m.connection(), m.facts(),
		st.Status.Value.Render(env.T("tui.lang.name"))}
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return text.Fit(" "+strings.Join(kept, sep), m.w, env.Tail())
}

// controller says what the controller is doing, with its pid.
func (m *Model) controller() string {
	env := m.env
	st := env.Styles
	s := m.link
	var word string
	tone := theme.ToneMuted
	switch s.Phase {
	case link.Watching:
		return st.Status.Key.Render(env.T("tui.status.readonly"))
	case link.Connected:
		word, tone = env.Labels.Or(component.KindController, orReady(s.Controller)), theme.ToneOK
	case link.Lost, link.Exited, link.Failed:
		word, tone = env.T("tui.link."+s.Phase.String()), theme.ToneBad
	case link.Waiting, link.Starting:
		word, tone = env.T("tui.link."+s.Phase.String())+" "+env.Duration(s.Elapsed()), theme.ToneProgress
	default:
		word = env.T("tui.link." + s.Phase.String())
	}
	out := st.Status.Key.Render(env.T("tui.status.controller")+" ") + st.ToneStyle(tone).Render(word)
	if s.PID > 0 {
		out += " " + st.Status.Key.Render(env.T("tui.status.pid", "PID", strconv.Itoa(s.PID)))
	}
	return out
}

func orReady(s string) string {
	if s == "" {
		return "ready"
	}
	return s
}

// connection says how the relay connection stands.
func (m *Model) connection() string {
	env := m.env
	st := env.Styles
	s := m.link
	if s.Phase == link.Watching {
		return ""
	}
	var word string
	tone := theme.ToneMuted
	switch s.Conn.Phase {
	case live.ConnConnected:
		word, tone = env.T("tui.conn.connected"), theme.ToneOK
	case live.ConnReconnecting:
		word, tone = env.T("tui.conn.reconnecting", "N", strconv.Itoa(s.Conn.Attempt), "D", env.Duration(s.Conn.Delay)), theme.ToneWarn
	case live.ConnDisconnected:
		word, tone = env.T("tui.conn.disconnected"), theme.ToneBad
	case live.ConnClosed:
		word = env.T("tui.conn.closed")
	default:
		word = env.T("tui.conn.connecting")
	}
	return st.Status.Key.Render(env.T("tui.status.link")+" ") + st.ToneStyle(tone).Render(word)
}

// facts marks the facts the relay context lacks, by name, in the warning
// tone: a successor controller could not answer them.
func (m *Model) facts() string {
	if len(m.missing) == 0 || m.link.Phase == link.Watching {
		return ""
	}
	env := m.env
	names := make([]string, len(m.missing))
	for i, f := range m.missing {
		names[i] = env.T("tui.fact." + string(f))
	}
	return env.Styles.ToneStyle(theme.ToneWarn).Render(env.T("tui.status.facts_missing", "Facts", strings.Join(names, env.T("tui.status.facts_sep"))))
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
