package conversation

import (
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	env := m.Env
	bodyH := max(m.Height-1, 0)
	tail := m.digestView(bodyH)
	room := bodyH - len(tail)
	body := m.scrollback(room)
	info := ""
	if m.scroll > 0 {
		info = env.T("tui.conversation.scrolled")
	}
	return component.Frame(env, env.T("tui.pane.conversation"), info, m.Focused, m.Width, m.Height, append(body, tail...))
}

// scrollback returns the last h lines of the entries, moved up by the
// scroll offset, padded at the top so the newest line sits at the bottom.
func (m *Model) scrollback(h int) []string {
	if h <= 0 {
		return nil
	}
	w := m.Width - 1
	if len(m.entries) == 0 {
		return []string{" " + m.Env.Styles.Muted.Render(m.Env.T(m.emptyID()))}
	}
	need := h + m.scroll
	var rev [][]string
	n := 0
	for i := len(m.entries) - 1; i >= 0 && n < need; i-- {
		e := m.entries[i]
		if m.focus != "" && e.task != "" && e.task != m.focus {
			continue
		}
		if e.gen != m.gen {
			e.lines, e.gen = e.render(m.Env, w), m.gen
		}
		rev = append(rev, e.lines)
		n += len(e.lines)
	}
	all := make([]string, 0, n)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
	}
	m.scroll = min(m.scroll, max(len(all)-h, 0))
	end := len(all) - m.scroll
	start := max(end-h, 0)
	out := make([]string, 0, h)
	for range h - (end - start) {
		out = append(out, "")
	}
	for _, l := range all[start:end] {
		out = append(out, " "+l)
	}
	return out
}

func (m *Model) emptyID() string {
	if m.Env.ReadOnly {
		return "tui.conversation.empty_readonly"
	}
	return "tui.conversation.empty"
}

// digestView draws the worker output digest of the active step, at most a
// third of the pane.
func (m *Model) digestView(bodyH int) []string {
	k := m.digest.shown(m.focus, m.active)
	step, lines := k.step, m.digest.of(k)
	max := min(len(lines), bodyH/3-1)
	if max <= 0 {
		return nil
	}
	env := m.Env
	st := env.Styles
	out := []string{" " + st.Muted.Render(env.T("tui.conversation.worker", "Step", env.Clean(step)))}
	for _, l := range lines[len(lines)-max:] {
		out = append(out, " "+st.Conversation.Worker.Render(st.Glyphs.Worker+" "+text.Truncate(env.Clean(l.Text(env.Loc)), m.Width-4, env.Tail())))
	}
	return out
}
