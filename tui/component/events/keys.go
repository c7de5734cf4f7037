package events

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// key acts on one key press of the focused pane.
func (m *Model) key(msg tea.KeyMsg) {
	if m.detail != nil {
		m.detailKey(msg)
		return
	}
	k := m.Env.Keys
	page := max(m.bodyHeight()-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-page)
	case key.Matches(msg, k.PageDown):
		m.move(page)
	case key.Matches(msg, k.Top):
		m.follow, m.cursor = false, 0
	case key.Matches(msg, k.Bottom):
		m.follow = true
	case key.Matches(msg, k.Follow):
		m.follow = !m.follow
	case key.Matches(msg, k.Detail):
		m.openDetail()
	case key.Matches(msg, k.FilterType):
		m.setFilter(filter{typ: m.types.after(m.filter.typ), minSev: m.filter.minSev, step: m.filter.step})
	case key.Matches(msg, k.FilterSeverity):
		m.setFilter(filter{typ: m.filter.typ, minSev: (m.filter.minSev + 1) % 3, step: m.filter.step})
	case key.Matches(msg, k.FilterStep):
		m.setFilter(filter{typ: m.filter.typ, minSev: m.filter.minSev, step: m.steps.after(m.filter.step)})
	case key.Matches(msg, k.FilterClear):
		m.setFilter(filter{})
	}
	m.settle()
}

// move moves the cursor by d rows; reaching the newest row follows again.
func (m *Model) move(d int) {
	n := m.visible()
	if n == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), n-1)
	m.follow = m.cursor == n-1 && d > 0
}

// setFilter applies f, rebuilding the list of matching rows (at most the
// ring's capacity) and keeping the selected event selected if it still
// matches.
func (m *Model) setFilter(f filter) {
	var selected uint64
	hadSel := m.visible() > 0
	if hadSel {
		selected = m.seqAt(m.cursor)
	}
	m.filter = f
	m.view = m.view[:0]
	if f.active() {
		for seq := m.ring.first; seq < m.ring.next(); seq++ {
			if f.match(&m.ring.at(seq).ev) {
				m.view = append(m.view, seq)
			}
		}
	}
	m.cursor = 0
	for i := 0; hadSel && i < m.visible(); i++ {
		if m.seqAt(i) >= selected {
			m.cursor = i
			break
		}
		m.cursor = i
	}
	m.unseen = 0
}
