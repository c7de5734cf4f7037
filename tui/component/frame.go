package component

import (
	"strings"

	"github.com/daokit/daokit/tui/text"
)

// Frame draws a pane: a title line (a focus mark, the title, a rule, and
// info figures at the right) above body, as exactly h lines of exactly w
// cells. The focus mark is a glyph as well as a colour, so that a plain
// text capture of the screen still shows which pane has the keys.
func Frame(env *Env, title, info string, focused bool, w, h int, body []string) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := make([]string, 0, h)
	lines = append(lines, TitleLine(env, title, info, focused, w))
	lines = append(lines, body...)
	return text.Block(lines, w, h, env.Tail())
}

// TitleLine is the first line of a pane.
func TitleLine(env *Env, title, info string, focused bool, w int) string {
	st := env.Styles
	g := st.Glyphs
	mark, ts := " ", st.PanePaint.Title
	if focused {
		mark, ts = g.Focus, st.PanePaint.TitleFocused
	}
	head := mark + " " + title + " "
	headW := text.Width(head)
	if headW >= w {
		return ts.Apply(text.Truncate(head, w, env.Tail()))
	}
	var tail string
	if info != "" {
		tail = " " + info + " "
	}
	tailW := text.Width(tail)
	if headW+tailW+2 > w {
		tail, tailW = "", 0
	}
	fill := w - headW - tailW
	rule := strings.Repeat(g.Rule, max(fill, 0))
	return ts.Apply(head) + st.PanePaint.Rule.Apply(rule) + st.PanePaint.Info.Apply(tail)
}

// Memo holds a pane's last rendering. Panes draw in View only when
// something they show changed since the last frame; a window that
// receives a burst of messages re-renders only the panes they touched.
// View and Update run on the program's one goroutine, so the memo needs
// no lock.
type Memo struct {
	s     string
	valid bool
}

// Get returns the memoized rendering, calling render when it is stale.
func (m *Memo) Get(render func() string) string {
	if !m.valid {
		m.s, m.valid = render(), true
	}
	return m.s
}

// Invalidate marks the rendering stale.
func (m *Memo) Invalidate() { m.valid = false }
