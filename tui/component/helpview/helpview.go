// Package helpview draws key help: the one-line short help under the
// panes and the full help the person opens with "?". Both come from the
// one key map (bubbles/help), so they say what the keys do, in the
// person's language. It keeps no state: the root passes the environment
// of the moment, so a language switch needs no call here.
package helpview

import (
	"strings"

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

// Full is the full help for groups, framed as a pane of w×h cells, with
// notes (already in env's language) under the commands.
func Full(env *component.Env, groups [][]key.Binding, w, h int, notes ...string) string {
	hm := model(env, w-2)
	var body []string
	for _, l := range strings.Split(hm.FullHelpView(groups), "\n") {
		body = append(body, " "+l)
	}
	body = append(body, "", " "+env.Styles.Muted.Render(env.T("tui.help.commands")))
	for _, n := range notes {
		if n == "" {
			continue
		}
		for _, l := range text.Wrap(n, max(w-3, 1)) {
			body = append(body, " "+env.Styles.Muted.Render(l))
		}
	}
	return component.Frame(env, env.T("tui.pane.help"), env.T("tui.help.close"), true, w, h, body)
}
