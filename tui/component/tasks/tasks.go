// Package tasks is the task list: every task the ledger tells of, with
// its state, iteration, age, cost and whether it needs the person, drawn
// over the panes like lazygit's side panels or k9s' resource view. The
// person filters and searches it and chooses the task the window
// steers: what they type then goes to that task as a follow-up, and the
// panes show that task. The list only reads; the root acts on a choice.
package tasks

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
)

// MaxTasks bounds the tasks kept; past it the oldest that does not need
// the person is forgotten.
const MaxTasks = 2000

// Model is the task list.
type Model struct {
	component.Pane
	keys KeyMap

	byID  map[string]*Task
	order []*Task // first seen first

	visible bool
	cursor  int // row under the cursor, in the shown rows
	// needsOnly shows only the tasks that need the person; query keeps
	// the tasks whose id or text holds it; searching: the person is
	// typing the query.
	needsOnly bool
	query     string
	searching bool
	// steered is the task the window steers ("" for none), marked in
	// the list.
	steered string
	// chosen is the person's choice, until the root takes it.
	chosen *Choice
	now    time.Time
	// current is the task, run and step of the pipeline file: the
	// controller's current run.
	current [3]string
	// gen numbers what every row depends on (width, language, clock,
	// the steered task); a task's row drawn for another gen is redrawn.
	gen uint64
}

// Choice is a task the person chose to steer; an empty TaskID means a
// new task (steer none).
type Choice struct {
	TaskID, RunID string
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Typist    = (*Model)(nil)
)

// New returns an empty, hidden list.
func New(env *component.Env) *Model {
	return &Model{Pane: component.Pane{Env: env}, keys: DefaultKeyMap(env.Loc), byID: map[string]*Task{}, gen: 1}
}

// Keys returns the list's key map.
func (m *Model) Keys() KeyMap { return m.keys }

// Visible reports whether the list is drawn.
func (m *Model) Visible() bool { return m.visible }

// SetVisible opens or closes the list; it opens on the steered task.
func (m *Model) SetVisible(v bool) {
	m.visible, m.searching = v, false
	if v {
		m.cursor = max(m.indexOf(m.steered), 0)
	}
	m.Memo.Invalidate()
}

// Typing implements component.Typist: printable keys are the query
// while the person searches.
func (m *Model) Typing() bool { return m.visible && m.searching }

// Len returns the number of tasks known.
func (m *Model) Len() int { return len(m.order) }

// Get returns the task id, or nil.
func (m *Model) Get(id string) *Task { return m.byID[id] }

// Steer marks task id as the one the window steers ("" for none).
func (m *Model) Steer(id string) {
	m.steered = id
	m.gen++
	m.Memo.Invalidate()
}

// Current returns the task, run and step of the controller's current
// run, as the pipeline file last said.
func (m *Model) Current() (task, run, step string) {
	return m.current[0], m.current[1], m.current[2]
}

// NeedingYou counts the tasks that need the person, but task except,
// and names the newest of them.
func (m *Model) NeedingYou(except string) (n int, newest string) {
	for i := len(m.order) - 1; i >= 0; i-- {
		if t := m.order[i]; t.ID != except && t.NeedsYou() {
			if n == 0 {
				newest = t.ID
			}
			n++
		}
	}
	return n, newest
}

// Chosen returns the person's choice once, and whether there was one.
func (m *Model) Chosen() (Choice, bool) {
	c := m.chosen
	m.chosen = nil
	if c == nil {
		return Choice{}, false
	}
	return *c, true
}

// SetSize implements component.Component: rows are drawn again for the
// new width.
func (m *Model) SetSize(w, h int) {
	if w != m.Width {
		m.gen++
	}
	m.Pane.SetSize(w, h)
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env, m.keys = msg.Env, DefaultKeyMap(msg.Env.Loc)
		m.gen++
	case live.LedgerMsg:
		if !m.ledger(msg.Update) {
			return m, nil
		}
	case live.RelayMsg:
		if msg.Update.Status == nil || !m.fromStatus(msg.Update.Status.Runs) || !m.visible {
			return m, nil
		}
	case live.TickMsg:
		m.now = msg.Now
		m.gen++
		if !m.visible {
			return m, nil
		}
	case tea.KeyMsg:
		if !m.visible || !m.key(msg) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// ledger folds an update's events into the tasks. It reports whether
// the list changed.
func (m *Model) ledger(u live.LedgerUpdate) bool {
	changed := false
	for i := range u.Events {
		e := &u.Events[i]
		if e.TaskID == "" || e.TaskID == globalTask {
			continue
		}
		at, _ := ledger.ParseTime(e.Timestamp)
		t := m.byID[e.TaskID]
		if t == nil {
			t = m.add(e.TaskID, e.RunID, at)
		}
		if t.apply(e, at) {
			changed = true
		}
	}
	if s := u.Snapshot; s != nil && s.Pipeline.HasValue() {
		p := &s.Pipeline.Value
		m.current = [3]string{p.TaskID, p.RunID, p.CurrentStep}
		changed = m.fromPipeline(p) || changed
	}
	if m.now.IsZero() {
		// Ages move with the clock tick (every row at once); until the
		// first tick, with the first read.
		m.now = u.ReadAt
	}
	return changed && m.visible
}

// fromPipeline adds the pipeline's task when the events read so far do
// not tell of it (its instruction is older than the tail the window
// read).
func (m *Model) fromPipeline(p *ledger.PipelineState) bool {
	if p.TaskID == "" || m.byID[p.TaskID] != nil {
		return false
	}
	at, _ := ledger.ParseTime(p.UpdatedAt)
	t := m.add(p.TaskID, p.RunID, at)
	t.Text = p.Goal
	t.slot.StepID = p.CurrentStep
	t.slot = projection.Settled(t.slot, vocab.Status(p.Status), vocab.Next(live.RouteOf(p).NextAction))
	return true
}

// fromStatus adds the tasks of the runs the controller has in memory
// (its answer to observe) that the events read so far do not tell of:
// a long ledger's older tasks, whose instructions are before the tail
// the window read. What the events said stays: they are newer. It
// reports whether a task was added.
func (m *Model) fromStatus(runs []live.RunState) bool {
	added := false
	for _, r := range runs {
		if r.TaskID == "" || m.byID[r.TaskID] != nil {
			continue
		}
		t := m.add(r.TaskID, r.RunID, time.Time{})
		t.slot.Fold(projection.Update{TaskID: r.TaskID, RunID: r.RunID, StepID: r.StepID, Lane: r.Lane,
			State: vocab.RunState(r.State), Reason: vocab.Reason(r.Reason)})
		added = true
	}
	return added
}

// add starts keeping task id, forgetting the oldest task that does not
// need the person when there are too many.
func (m *Model) add(id, run string, at time.Time) *Task {
	if len(m.order) >= MaxTasks {
		for i, t := range m.order {
			if !t.NeedsYou() && t.ID != m.steered {
				delete(m.byID, t.ID)
				m.order = append(m.order[:i], m.order[i+1:]...)
				break
			}
		}
	}
	t := &Task{ID: id, slot: projection.Entry{TaskID: id, RunID: run}, Started: at, Last: at}
	m.byID[id] = t
	m.order = append(m.order, t)
	return t
}

// key handles a key of the open list; it reports whether the list
// changed.
func (m *Model) key(msg tea.KeyMsg) bool {
	if m.searching {
		return m.searchKey(msg)
	}
	k, g := m.keys, m.Env.Keys
	rows := m.rows()
	switch {
	case key.Matches(msg, g.Up):
		m.cursor--
	case key.Matches(msg, g.Down):
		m.cursor++
	case key.Matches(msg, g.PageUp):
		m.cursor -= max(m.Height-3, 1)
	case key.Matches(msg, g.PageDown):
		m.cursor += max(m.Height-3, 1)
	case key.Matches(msg, g.Top):
		m.cursor = 0
	case key.Matches(msg, g.Bottom):
		m.cursor = len(rows) - 1
	case key.Matches(msg, k.Choose):
		if m.cursor >= 0 && m.cursor < len(rows) {
			t := rows[m.cursor]
			m.chosen = &Choice{TaskID: t.ID, RunID: t.Run()}
			m.visible = false
		}
	case key.Matches(msg, k.NewTask):
		m.chosen, m.visible = &Choice{}, false
	case key.Matches(msg, k.NeedsYou):
		m.needsOnly = !m.needsOnly
		m.cursor = 0
	case key.Matches(msg, k.Search):
		m.searching = true
	default:
		return false
	}
	m.cursor = min(max(m.cursor, 0), max(len(m.rows())-1, 0))
	return true
}

// searchKey edits the query: text adds to it, backspace takes from it,
// enter keeps it and esc drops it.
func (m *Model) searchKey(msg tea.KeyMsg) bool {
	switch {
	case component.IsText(msg):
		m.query += string(msg.Runes)
		if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
			m.query += " "
		}
	case msg.Type == tea.KeyBackspace:
		if r := []rune(m.query); len(r) > 0 {
			m.query = string(r[:len(r)-1])
		}
	case msg.Type == tea.KeyEnter:
		m.searching = false
	case msg.Type == tea.KeyEsc:
		m.searching, m.query = false, ""
	default:
		return false
	}
	m.cursor = 0
	return true
}

// rows returns the tasks shown, newest first.
func (m *Model) rows() []*Task {
	q := strings.ToLower(strings.TrimSpace(m.query))
	out := make([]*Task, 0, len(m.order))
	for i := len(m.order) - 1; i >= 0; i-- {
		t := m.order[i]
		if m.needsOnly && !t.NeedsYou() {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(t.ID), q) && !strings.Contains(strings.ToLower(t.Text), q) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// indexOf returns the row of task id, or -1.
func (m *Model) indexOf(id string) int {
	for i, t := range m.rows() {
		if t.ID == id {
			return i
		}
	}
	return -1
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	return []key.Binding{k.Choose, k.NewTask, k.NeedsYou, k.Search}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k, g := m.keys, m.Env.Keys
	return [][]key.Binding{{k.Open, k.Choose, k.NewTask, k.NeedsYou, k.Search, g.Up, g.Down, g.Top, g.Bottom}}
}
