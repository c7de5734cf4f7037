package events

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	var body []string
	switch {
	case m.detail != nil:
		body = m.detailBody()
	case m.visible() == 0:
		id := "tui.events.empty"
		if m.filter.active() {
			id = "tui.events.no_match"
		}
		body = []string{"  " + m.Env.Styles.Muted.Render(m.Env.T(id))}
	default:
		body = m.rows()
	}
	return component.Frame(m.Env, m.title(), m.info(), m.Focused, m.Width, m.Height, body)
}

// rows draws the visible window of the list.
func (m *Model) rows() []string {
	st := m.Env.Styles
	h, rw := m.bodyHeight(), m.Width-2
	out := make([]string, 0, h)
	end := min(m.offset+h, m.visible())
	for i := m.offset; i < end; i++ {
		seq := m.seqAt(i)
		r := m.ring.at(seq)
		if r.gen != m.gen {
			r.line, r.gen = renderRow(m.Env, &r.ev, rw), m.gen
		}
		line := r.line
		if n := m.folded[seq]; n > 1 && !m.unfold {
			// A folded run of worker output: its newest line and how
			// many it stands for (the count changes, so it is not
			// cached).
			more := st.Muted.Render(" " + m.Env.T("tui.events.folded", "N", strconv.Itoa(n), "Key", m.Env.Keys.Fold.Help().Key))
			line = text.Fit(renderRow(m.Env, &r.ev, rw-text.Width(more))+more, rw, "")
		}
		if i == m.cursor && m.Focused {
			out = append(out, st.Glyphs.Cursor+" "+st.Table.Selected.Render(text.Fit(line, rw, "")))
			continue
		}
		out = append(out, "  "+line)
	}
	return out
}

func (m *Model) title() string {
	if m.detail != nil {
		return m.Env.T("tui.events.detail.title")
	}
	return m.Env.T("tui.pane.events")
}

// info is the title line's right side: how many events, whether the pane
// follows, what the filter keeps.
func (m *Model) info() string {
	env := m.Env
	var parts []string
	if m.detail != nil {
		return env.T("tui.events.detail.close")
	}
	if m.searching {
		return env.T("tui.events.searching", "Text", env.Clean(m.query))
	}
	if m.filter.active() {
		parts = append(parts, env.T("tui.events.filtered", "Shown", count(uint64(len(m.view))), "Total", count(uint64(m.ring.n))))
		if m.filter.typ != "" {
			parts = append(parts, env.T("tui.events.category."+m.filter.typ))
		}
		if s := severityOf(m.filter.minSev); s != "" {
			parts = append(parts, s+"+")
		}
		if m.filter.task != "" {
			parts = append(parts, env.Clean(m.filter.task))
		}
		if m.filter.step != "" {
			parts = append(parts, env.Clean(m.filter.step))
		}
		if m.filter.text != "" {
			parts = append(parts, "/"+env.Clean(m.filter.text))
		}
	} else {
		parts = append(parts, count(m.total))
	}
	if m.follow {
		parts = append(parts, env.Styles.Glyphs.Follow+env.T("tui.events.following"))
	} else if m.unseen > 0 {
		parts = append(parts, env.T("tui.events.unseen", "N", count(uint64(m.unseen))))
	}
	return strings.Join(parts, " ")
}
