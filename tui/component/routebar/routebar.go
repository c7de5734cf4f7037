// Package routebar draws the one-line route bar: task · run · lane ·
// step · next action. The route comes from the controller's notices when
// it has a controller, and from pipeline_state.json otherwise; the
// latest report wins, since both describe the same run.
package routebar

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
)

// Model is the route bar.
type Model struct {
	env   *component.Env
	w     int
	route live.Route
	attn  attention.State
	memo  component.Memo
}

var _ component.Component = (*Model)(nil)

// New returns an empty route bar.
func New(env *component.Env) *Model { return &Model{env: env} }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements component.Component; the bar is one line high.
func (m *Model) SetSize(w, _ int) {
	m.w = w
	m.memo.Invalidate()
}

// Route returns the route shown.
func (m *Model) Route() live.Route { return m.route }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.env = msg.Env
		m.memo.Invalidate()
	case live.LedgerMsg:
		if s := msg.Update.Snapshot; s != nil && s.Pipeline.HasValue() {
			m.set(live.RouteOf(&s.Pipeline.Value))
		}
	case live.RelayMsg:
		switch u := msg.Update; {
		case u.Route != nil:
			m.set(*u.Route)
		case u.Status != nil && !u.Status.Route.IsZero():
			m.set(u.Status.Route)
		}
	case attention.StateMsg:
		m.attn = msg.State
		m.memo.Invalidate()
	case live.ForwardedMsg:
		if msg.Err == nil && !msg.Ack.Route.IsZero() {
			m.set(msg.Ack.Route)
		}
	}
	return m, nil
}

func (m *Model) set(r live.Route) {
	if r != m.route {
		m.route = r
		m.memo.Invalidate()
	}
}

// View implements tea.Model.
func (m *Model) View() string { return m.memo.Get(m.render) }

func (m *Model) render() string {
	env := m.env
	st := env.Styles
	none := env.T("tui.none")
	val := func(s string) string {
		if s == "" {
			return none
		}
		return env.Clean(s)
	}
	// The next action in words; a stored value the window has no words
	// for is shown as it is.
	next := val(m.route.NextAction)
	if l := env.Labels.Get(component.KindNext, m.route.NextAction); l != "" {
		next = l
	}
	if m.attn.EndedByPerson(m.route.TaskID, m.route.RunID) {
		next = env.T("tui.route.cancelled")
	}
	fields := []struct{ id, v string }{
		{"tui.route.task", val(m.route.TaskID)},
		{"tui.route.run", val(m.route.RunID)},
		{"tui.route.lane", val(m.route.ActiveLane)},
		{"tui.route.step", val(m.route.ActiveStep)},
		{"tui.route.next", next},
	}
	sep := st.Route.Sep.Render(st.Glyphs.Sep)
	join := func(withKeys bool) string {
		var out string
		for i, f := range fields {
			if i > 0 {
				out += sep
			}
			if withKeys {
				out += env.T("tui.route.field", "Key", st.Route.Key.Render(env.T(f.id)), "Value", st.Route.Value.Render(f.v))
			} else {
				out += st.Route.Value.Render(f.v)
			}
		}
		return out
	}
	line := " " + join(true)
	if text.Width(line) > m.w {
		line = " " + join(false)
	}
	return text.Fit(line, m.w, env.Tail())
}

// ShortHelp implements help.KeyMap; the bar has no keys.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
