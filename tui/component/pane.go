package component

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Pane is the state and the methods that every focusable pane had in
// common, kept once. A pane embeds it; one that must do more when it is
// resized or focused (a text area to resize, rows cached per width)
// defines its own SetSize or SetFocused and calls Pane's from it.
//
// The fields are exported because each pane lives in a package of its
// own; like the rest of a pane they are read and written only on the
// program's one goroutine.
type Pane struct {
	// Env is the pane's environment; the pane swaps it on an EnvMsg.
	Env *Env
	// Width and Height are the box SetSize gave, title line included.
	Width, Height int
	// Focused reports that the pane has the keys, so it draws the
	// focus mark and acts on keys.
	Focused bool
	// Memo is the pane's last rendering.
	Memo Memo
}

var _ Focuser = (*Pane)(nil)

// Init implements tea.Model. A pane has nothing to start: the root runs
// the feeds whose messages fill it.
func (p *Pane) Init() tea.Cmd { return nil }

// SetSize implements Component. Every line of the rendering depends on
// the box, so the memo is stale.
func (p *Pane) SetSize(w, h int) {
	p.Width, p.Height = w, h
	p.Memo.Invalidate()
}

// SetFocused implements Focuser. The title line shows the focus, so the
// memo is stale.
func (p *Pane) SetFocused(f bool) {
	p.Focused = f
	p.Memo.Invalidate()
}

// Frame draws the pane's box around body under the title of catalog id
// title. info goes after the title; a pane that shows the last good value
// of a file that failed to load (stale) says so there instead.
func (p *Pane) Frame(title, info string, stale bool, body []string) string {
	if stale {
		info = p.Env.T("tui.pane.stale")
	}
	return Frame(p.Env, p.Env.T(title), info, p.Focused, p.Width, p.Height, body)
}

// ScrollKey moves *scroll for the line keys (up, down, top, and bottom,
// which is last) and reports whether msg was one of them. The pane clamps
// *scroll when it draws, so it may leave the range here.
func (p *Pane) ScrollKey(msg tea.KeyMsg, scroll *int, last int) bool {
	k := p.Env.Keys
	switch {
	case key.Matches(msg, k.Up):
		*scroll--
	case key.Matches(msg, k.Down):
		*scroll++
	case key.Matches(msg, k.Top):
		*scroll = 0
	case key.Matches(msg, k.Bottom):
		*scroll = last
	default:
		return false
	}
	return true
}
