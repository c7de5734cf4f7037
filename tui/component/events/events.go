// Package events is the event pane: the newest events of events.jsonl,
// newest at the bottom, coloured by severity, with follow mode,
// scrollback, filters by type, severity and step, and a detail view of
// one event's payload.
//
// It keeps a bounded ring of events (DefaultCapacity) and draws only the
// rows that are visible, each rendered once per width and language; so
// its cost per frame depends on the pane's height, not on how many
// events went by.
package events

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
)

// DefaultCapacity is how many of the newest events the pane keeps.
const DefaultCapacity = 5000

// Model is the event pane.
type Model struct {
	component.Pane
	gen uint64 // rendering generation of the cached rows

	ring   ring
	total  uint64 // events received, elided ones included
	filter filter
	view   []uint64 // seqs that match an active filter, oldest first
	types  seen
	steps  seen

	cursor int  // selected position in the visible list
	offset int  // first position drawn
	follow bool // keep the newest event in view and selected
	unseen int  // events that arrived while not following

	detail *detail // open detail view, or nil

	// unfold shows every worker output event; folded (the default), a
	// run of them for one step is one row, its newest, standing for
	// folded[seq] events.
	unfold bool
	folded map[uint64]int

	searching bool   // the person types a search
	query     string // the search text typed so far
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Focuser   = (*Model)(nil)
)

// New returns an empty pane keeping the newest capacity events.
func New(env *component.Env, capacity int) *Model {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Model{Pane: component.Pane{Env: env}, ring: newRing(capacity), follow: true, gen: 1}
}

// SetSize implements component.Component. Rows are rendered once per
// width, so a new width renders them again; a new height may leave the
// cursor out of view.
func (m *Model) SetSize(w, h int) {
	if w != m.Width {
		m.gen++
	}
	m.Pane.SetSize(w, h)
	m.settle()
}

// Detailing reports whether the detail view is open.
func (m *Model) Detailing() bool { return m.detail != nil }

// Len returns the number of events held.
func (m *Model) Len() int { return m.ring.n }

// Total returns the number of events received since the window opened.
func (m *Model) Total() uint64 { return m.total }

// Last returns the newest event the pane holds.
func (m *Model) Last() (ledger.Event, bool) {
	if m.ring.n == 0 {
		return ledger.Event{}, false
	}
	return m.ring.at(m.ring.next() - 1).ev, true
}

// Captures implements component.Capturer: while the person types a
// search, keys such as tab and "?" are text.
func (m *Model) Captures() bool { return m.Focused && m.searching }

// Typing implements component.Typist.
func (m *Model) Typing() bool { return m.Captures() }

// Following reports whether the pane follows new events.
func (m *Model) Following() bool { return m.follow }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
		m.gen++
		if m.detail != nil {
			m.detail.lines = detailLines(m.Env, &m.detail.ev)
		}
	case live.LedgerMsg:
		if !m.ingest(msg.Update) {
			return m, nil
		}
	case FocusMsg:
		if m.filter.task == msg.TaskID {
			return m, nil
		}
		f := m.filter
		f.task = msg.TaskID
		m.setFilter(f)
		m.settle()
	case tea.KeyMsg:
		if !m.Focused {
			return m, nil
		}
		cmd := m.key(msg)
		m.Memo.Invalidate()
		return m, cmd
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// ingest takes the events of one update. It reports whether anything
// changed.
func (m *Model) ingest(u live.LedgerUpdate) bool {
	if u.Reset {
		m.ring.clear()
		m.view = m.view[:0]
		m.cursor, m.offset, m.unseen = 0, 0, 0
	}
	if len(u.Events) == 0 && u.Elided == 0 && !u.Reset {
		return false
	}
	m.total += uint64(u.Elided)
	for i := range u.Events {
		m.push(u.Events[i])
	}
	m.settle()
	return true
}

// push adds one event, keeping positions pointing at the same events
// when the oldest one falls out of the ring.
func (m *Model) push(ev ledger.Event) {
	m.total++
	m.types.add(categoryOf(&ev))
	m.steps.add(ev.StepID)
	first := m.ring.first
	if m.ring.push(ev) {
		m.evicted(first)
	}
	if !m.useView() {
		if !m.follow {
			m.unseen++
		}
		return
	}
	if m.filter.match(&ev) && m.appendView(m.ring.next()-1) && !m.follow {
		m.unseen++
	}
}

// useView reports whether the visible list is m.view (a filter, or the
// folding of worker output) rather than the whole ring.
func (m *Model) useView() bool { return m.filter.active() || !m.unfold }

// isOutput reports a worker output event, the ones that fold.
func isOutput(ev *ledger.Event) bool { return categoryOf(ev) == catOutput }

// appendView adds seq to the visible list; a worker output event that
// follows one of the same run and step replaces it (folding). It reports
// whether a row was added.
func (m *Model) appendView(seq uint64) bool {
	if m.folded == nil {
		m.folded = map[uint64]int{}
	}
	ev := &m.ring.at(seq).ev
	if !isOutput(ev) {
		m.view = append(m.view, seq)
		return true
	}
	if n := len(m.view); !m.unfold && n > 0 {
		last := m.view[n-1]
		if prev := &m.ring.at(last).ev; isOutput(prev) && prev.StepID == ev.StepID && prev.RunID == ev.RunID {
			m.view[n-1] = seq
			m.folded[seq] = max(m.folded[last], 1) + 1
			delete(m.folded, last)
			return false
		}
	}
	m.view = append(m.view, seq)
	m.folded[seq] = 1
	return true
}

// evicted shifts positions after the row seq left the ring.
func (m *Model) evicted(seq uint64) {
	delete(m.folded, seq)
	if m.useView() {
		if len(m.view) == 0 || m.view[0] != seq {
			return
		}
		m.view = m.view[1:]
	}
	m.cursor = max(m.cursor-1, 0)
	m.offset = max(m.offset-1, 0)
}

// visible returns the number of rows in the visible list.
func (m *Model) visible() int {
	if m.useView() {
		return len(m.view)
	}
	return m.ring.n
}

// seqAt returns the seq at position i of the visible list.
func (m *Model) seqAt(i int) uint64 {
	if m.useView() {
		return m.view[i]
	}
	return m.ring.first + uint64(i)
}

// bodyHeight is the number of rows under the title line.
func (m *Model) bodyHeight() int { return max(m.Height-1, 0) }

// settle puts the cursor and window back in range, following if asked.
func (m *Model) settle() {
	n, h := m.visible(), m.bodyHeight()
	if m.follow {
		m.cursor, m.unseen = n-1, 0
	}
	m.cursor = min(max(m.cursor, 0), max(n-1, 0))
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if h > 0 && m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	if m.follow {
		m.offset = max(n-h, 0)
	}
	m.offset = min(max(m.offset, 0), max(n-h, 0))
	if m.detail != nil {
		m.detail.clamp(h)
	}
	m.Memo.Invalidate()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Env.Keys
	if m.detail != nil {
		return []key.Binding{k.Up, k.Down, k.PageDown, k.Dismiss}
	}
	return []key.Binding{k.Up, k.Down, k.Follow, k.Detail, k.FilterType, k.FilterSeverity, k.FilterStep, k.FilterClear}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Follow, k.Detail, k.Dismiss},
		{k.FilterType, k.FilterSeverity, k.FilterStep, k.FilterClear, k.Search, k.Copy, k.Fold},
	}
}
