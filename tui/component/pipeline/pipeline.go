// Package pipeline is the pipeline pane: task, run, goal, top-level
// status, and the steps with their state as role_lifecycle records it.
package pipeline

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
)

// Model is the pipeline pane.
type Model struct {
	component.Pane

	p      ledger.PipelineState
	has    bool
	stale  bool
	scroll int // first step row shown
	attn   attention.State
	// focus is the task the window is focused on ("" for none): the
	// pipeline file holds the current run only, so the pane says when
	// that is another task.
	focus string
}

// FocusMsg tells the pane which task the window is focused on.
type FocusMsg struct {
	TaskID string
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Focuser   = (*Model)(nil)
)

// New returns an empty pane.
func New(env *component.Env) *Model { return &Model{Pane: component.Pane{Env: env}} }

// Status returns the pipeline status shown.
func (m *Model) Status() string { return m.p.Status }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
	case live.LedgerMsg:
		s := msg.Update.Snapshot
		if s == nil {
			return m, nil
		}
		m.has, m.p, m.stale = s.Pipeline.HasValue(), s.Pipeline.Value, s.Pipeline.Stale
	case attention.StateMsg:
		m.attn = msg.State
	case FocusMsg:
		m.focus = msg.TaskID
	case tea.KeyMsg:
		if !m.Focused || !m.ScrollKey(msg, &m.scroll, len(m.p.Steps)) {
			return m, nil
		}
		// Kept in range here; View clamps it to the rows it has.
		m.scroll = min(max(m.scroll, 0), max(len(m.p.Steps)-1, 0))
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	info := ""
	if m.focus != "" && m.has && m.p.TaskID != m.focus {
		info = m.Env.T("tui.tasks.pipeline_other", "Task", m.Env.Clean(m.p.TaskID))
	}
	return m.Frame("tui.pane.pipeline", info, m.stale, m.body())
}

func (m *Model) body() []string {
	env := m.Env
	st := env.Styles
	if !m.has {
		return []string{" " + st.Muted.Render(env.T("tui.pipeline.none"))}
	}
	p := &m.p
	field := func(id, v string) string {
		if v == "" {
			v = st.Muted.Render(env.T("tui.none"))
		} else {
			v = env.Clean(v)
		}
		return " " + st.Muted.Render(env.T(id)+" ") + v
	}
	// The status in words (the stored value only when the window has
	// none), from the projection: a run cancelled on purpose is
	// cancelled, not FAILED.
	d := m.attn.Pipeline(p.TaskID, p.RunID, p.Status)
	status := st.ToneStyle(component.Tone(d.Mood)).Render(env.Clean(component.Word(env, d.Word)))
	lines := []string{
		" " + st.Muted.Render(env.T("tui.pipeline.status")+" ") + status,
		field("tui.pipeline.goal", p.Goal),
	}
	lines = append(lines, m.loopLines()...)
	// Task and run are in the route bar too: they give way to the steps
	// when rows are scarce.
	room := m.Height - 1
	steps := max(len(p.Steps), 1)
	if room >= len(lines)+1+steps {
		lines = append(lines, field("tui.pipeline.task", p.TaskID))
	}
	if room >= len(lines)+1+steps {
		lines = append(lines, field("tui.pipeline.run", p.RunID))
	}
	if len(p.Steps) == 0 {
		return append(lines, " "+st.Muted.Render(env.T("tui.pipeline.no_steps")))
	}
	left := room - len(lines)
	if left <= 0 {
		return lines
	}
	first := min(max(m.scroll, 0), max(len(p.Steps)-left, 0))
	for i := first; i < len(p.Steps) && i < first+left; i++ {
		lines = append(lines, m.stepLine(&p.Steps[i]))
	}
	return lines
}

// Wants returns the height the pane needs to show everything.
func (m *Model) Wants() int {
	if !m.has {
		return 2
	}
	return 1 + 4 + len(m.loopLines()) + max(len(m.p.Steps), 1)
}

// stepLine draws one step: its phase mark, id, title and lifecycle state.
func (m *Model) stepLine(s *ledger.Step) string {
	env := m.Env
	st := env.Styles
	g := st.Glyphs
	p := &m.p
	state := p.RoleLifecycle.Get("step:" + s.ID)
	done := m.attn.Pipeline(p.TaskID, p.RunID, p.Status).Done()
	d := projection.Step(state, s.ID == p.CurrentStep && !done, done)
	tone := component.Tone(d.Mood)
	cur := " "
	if d.Selected {
		cur = g.Current
	}
	head := " " + cur + st.ToneStyle(tone).Render(component.Glyph(d.Mood, g)) + " " + st.Bold.Render(env.Clean(s.ID)) + " "
	room := m.Width - text.Width(head) - 1
	var right string
	rightW := 0
	if state != "" {
		// The state's words take up to half the row, more when they need
		// it (a failed step's reason) but never all of the title; the
		// stored value (its lane or reason code, as status shows it)
		// follows when it fits whole.
		words := env.Clean(component.Word(env, d.Word))
		limit := room / 2
		if w := text.Width(words); w > limit {
			limit = min(w, room*2/3)
		}
		right = words
		if withCode := words + " (" + env.Clean(state) + ")"; words != state && text.Width(withCode) <= limit {
			right = withCode
		}
		right = text.Truncate(right, max(limit, 0), env.Tail())
		rightW = text.Width(right)
		right = st.ToneStyle(tone).Render(right)
	}
	title := text.Truncate(env.Clean(s.Title), max(room-rightW-1, 0), env.Tail())
	gap := max(room-text.Width(title)-rightW, 1)
	return head + title + spaces(gap) + right
}

func spaces(n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.Env.Keys.Up, m.Env.Keys.Down}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}}
}
