// Package helpview draws key help: the one-line short help under the
// panes and the full help the person opens with "?" (full.go). Both come
// from the one key map, so they say what the keys do, in the person's
// language. The root passes the environment of the moment, so a language
// switch needs no call here; the full help keeps only its scroll and
// search.
package helpview

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// model returns a help renderer styled from env, w cells wide.
func model(env *component.Env, w int) help.Model {
	st := env.Styles
	h := help.New()
	h.Styles = help.Styles{
		Ellipsis:       st.Help.Sep,
		ShortKey:       st.Help.Key,
		ShortDesc:      st.Help.Desc,
		ShortSeparator: st.Help.Sep,
		FullKey:        st.Help.Key,
		FullDesc:       st.Help.Desc,
		FullSeparator:  st.Help.Sep,
	}
	h.ShortSeparator = st.Glyphs.Sep
	h.FullSeparator = "    "
	h.Ellipsis = st.Glyphs.Ellipsis
	h.Width = max(w, 1)
	return h
}

// ShortText is the one-line help for bindings at any width, to measure.
func ShortText(env *component.Env, bindings []key.Binding) string {
	h := model(env, 1<<20)
	return " " + h.ShortHelpView(bindings)
}

// Short is the one-line help for bindings, w cells wide.
func Short(env *component.Env, bindings []key.Binding, w int) string {
	h := model(env, w-1)
	return text.Fit(" "+h.ShortHelpView(bindings), w, env.Tail())
}
