// Package helpview draws key help: the one-line short help under the
// panes and the full help the person opens with "?". Both come from the
// one key map (bubbles/help), so they say what the keys do, in the
// person's language.
package helpview

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// Model renders help for a key map.
type Model struct {
	env *component.Env
	h   help.Model
}

// New returns a help renderer styled from env.
func New(env *component.Env) *Model {
	m := &Model{h: help.New()}
	m.SetEnv(env)
	return m
}

// SetEnv restyles the help after a language switch.
func (m *Model) SetEnv(env *component.Env) {
	m.env = env
	st := env.Styles
	m.h.Styles = help.Styles{
		Ellipsis:       st.Help.Sep,
		ShortKey:       st.Help.Key,
		ShortDesc:      st.Help.Desc,
		ShortSeparator: st.Help.Sep,
		FullKey:        st.Help.Key,
		FullDesc:       st.Help.Desc,
		FullSeparator:  st.Help.Sep,
	}
	m.h.ShortSeparator = st.Glyphs.Sep
	m.h.FullSeparator = "    "
	m.h.Ellipsis = st.Glyphs.Ellipsis
}

// Short is the one-line help for bindings, w cells wide.
func (m *Model) Short(bindings []key.Binding, w int) string {
	m.h.Width = max(w-1, 1)
	return text.Fit(" "+m.h.ShortHelpView(bindings), w, m.env.Tail())
}

// Full is the full help for groups, framed as a pane of w×h cells.
func (m *Model) Full(groups [][]key.Binding, w, h int) string {
	m.h.Width = max(w-2, 1)
	var body []string
	for _, l := range strings.Split(m.h.FullHelpView(groups), "\n") {
		body = append(body, " "+l)
	}
	body = append(body, "", " "+m.env.Styles.Muted.Render(m.env.T("tui.help.commands")))
	return component.Frame(m.env, m.env.T("tui.pane.help"), m.env.T("tui.help.close"), true, w, h, body)
}
