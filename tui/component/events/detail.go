package events

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/text"
)

// detail is the open detail view of one event. It holds a copy of the
// event, so it stays readable after the event leaves the ring.
type detail struct {
	ev     ledger.Event
	lines  []string // unwrapped
	offset int      // first wrapped line shown
	n      int      // wrapped lines at the last draw
}

func (d *detail) clamp(h int) {
	d.offset = min(max(d.offset, 0), max(d.n-h, 0))
}

func (m *Model) openDetail() {
	if m.visible() == 0 {
		return
	}
	ev := m.ring.at(m.seqAt(m.cursor)).ev
	m.detail = &detail{ev: ev, lines: detailLines(m.Env, &ev)}
}

func (m *Model) detailKey(msg tea.KeyMsg) {
	k := m.Env.Keys
	d := m.detail
	page := max(m.bodyHeight()-1, 1)
	switch {
	case key.Matches(msg, k.Dismiss), key.Matches(msg, k.Detail):
		m.detail = nil
		return
	case key.Matches(msg, k.Up):
		d.offset--
	case key.Matches(msg, k.Down):
		d.offset++
	case key.Matches(msg, k.PageUp):
		d.offset -= page
	case key.Matches(msg, k.PageDown):
		d.offset += page
	case key.Matches(msg, k.Top):
		d.offset = 0
	case key.Matches(msg, k.Bottom):
		d.offset = d.n
	}
	d.clamp(m.bodyHeight())
}

// detailBody wraps the detail lines to the pane and returns the window.
func (m *Model) detailBody() []string {
	d := m.detail
	w, h := m.Width-2, m.bodyHeight()
	var wrapped []string
	for _, l := range d.lines {
		wrapped = append(wrapped, text.Wrap(l, w)...)
	}
	d.n = len(wrapped)
	d.clamp(h)
	out := make([]string, 0, h)
	for _, l := range wrapped[d.offset:min(d.offset+h, len(wrapped))] {
		out = append(out, "  "+l)
	}
	return out
}
