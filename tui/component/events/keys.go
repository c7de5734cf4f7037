package events

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
)

// key acts on one key press of the focused pane.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.searching {
		m.searchKey(msg)
		return nil
	}
	if m.detail != nil {
		m.detailKey(msg)
		return nil
	}
	k := m.Env.Keys
	var cmd tea.Cmd
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
		f := m.filter
		f.typ = m.types.after(f.typ)
		m.setFilter(f)
	case key.Matches(msg, k.FilterSeverity):
		f := m.filter
		f.minSev = (f.minSev + 1) % 3
		m.setFilter(f)
	case key.Matches(msg, k.FilterStep):
		f := m.filter
		f.step = m.steps.after(f.step)
		m.setFilter(f)
	case key.Matches(msg, k.FilterClear):
		m.setFilter(filter{task: m.filter.task})
	case key.Matches(msg, k.Search):
		m.searching, m.query = true, m.filter.text
	case key.Matches(msg, k.Copy):
		cmd = m.copySelected()
	case key.Matches(msg, k.Fold):
		m.unfold = !m.unfold
		m.setFilter(m.filter)
	}
	m.settle()
	return cmd
}

// searchKey edits the search text: typed text is text, Enter applies it
// (empty: no search), Esc gives up.
func (m *Model) searchKey(msg tea.KeyMsg) {
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
		f := m.filter
		f.text = strings.TrimSpace(m.query)
		m.setFilter(f)
		m.settle()
	case msg.Type == tea.KeyEsc:
		m.searching = false
	}
}

// CopyMsg asks the root to put Text (an event's payload) on the
// clipboard and to say so.
type CopyMsg struct {
	Text string
	// What names the event, in the person's language.
	What string
}

// copySelected asks for the selected event's payload to be copied.
func (m *Model) copySelected() tea.Cmd {
	if m.visible() == 0 {
		return nil
	}
	ev := &m.ring.at(m.seqAt(m.cursor)).ev
	payload, err := ev.Payload.MarshalJSON()
	if err != nil {
		return nil
	}
	msg := CopyMsg{Text: string(payload), What: m.Env.Labels.Or(component.KindEvent, ev.EventType)}
	return func() tea.Msg { return msg }
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
	m.folded = map[uint64]int{}
	if m.useView() {
		for seq := m.ring.first; seq < m.ring.next(); seq++ {
			if f.match(&m.ring.at(seq).ev) {
				m.appendView(seq)
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

// FocusMsg tells the pane which task the window is focused on: the pane
// then lists only that task's events; an empty TaskID lists them all.
type FocusMsg struct {
	TaskID string
}
