package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/tui/component"
)

// The key help is built from the one key map: the short line under the
// panes from the focused pane's keys and the global ones, F1 from every
// pane's, each key once, grouped by pane in screen order.

// fullHelp lists every key once: the global keys first, then each pane's
// under its title.
func (m *Model) fullHelp() [][]key.Binding {
	k := m.env.Keys
	global := mergeByDesc(k.NextPane, k.PrevPane, k.Help, k.HelpAnyPane, k.Language, k.LanguageTyping,
		k.Changes, k.Controller, k.Dismiss, k.Quit)
	groups := [][]key.Binding{titled(m.env.T("tui.help.everywhere"), global)}
	seen := map[string]bool{}
	for _, b := range global {
		for _, kk := range b.Keys() {
			seen[kk] = true
		}
	}
	for _, f := range screenOrder {
		p := m.paneFor(f)
		var keys []key.Binding
		for _, g := range p.FullHelp() {
			for _, b := range g {
				if fresh(b, seen) {
					keys = append(keys, b)
				}
			}
		}
		if len(keys) > 0 {
			groups = append(groups, titled(m.env.T(paneTitle(f)), keys))
		}
	}
	// The views drawn over the panes, each with its keys not listed yet.
	for _, v := range []struct {
		title string
		keys  help.KeyMap
	}{{"tui.help.changes", m.changes}, {"tui.tasks.help", m.tasks}, {"tui.log.help", m.logs}} {
		var more []key.Binding
		for _, g := range v.keys.FullHelp() {
			for _, b := range g {
				if fresh(b, seen) {
					more = append(more, b)
				}
			}
		}
		if len(more) > 0 {
			groups = append(groups, titled(m.env.T(v.title), more))
		}
	}
	return groups
}

// fresh reports whether b has a key not listed yet, and marks its keys.
func fresh(b key.Binding, seen map[string]bool) bool {
	isNew := false
	for _, k := range b.Keys() {
		if !seen[k] {
			isNew = true
		}
		seen[k] = true
	}
	return isNew && b.Help().Key != ""
}

// titled puts a title row (a binding with no description) over keys.
func titled(title string, keys []key.Binding) []key.Binding {
	return append([]key.Binding{key.NewBinding(key.WithHelp(title, ""))}, keys...)
}

// mergeByDesc joins bindings that do the same thing ("?" and "f1" both
// open help) into one row, "?/f1".
func mergeByDesc(bs ...key.Binding) []key.Binding {
	var out []key.Binding
	at := map[string]int{}
	for _, b := range bs {
		h := b.Help()
		if i, ok := at[h.Desc]; ok {
			prev := out[i]
			keys := append(append([]string(nil), prev.Keys()...), b.Keys()...)
			out[i] = key.NewBinding(key.WithKeys(keys...), key.WithHelp(prev.Help().Key+"/"+h.Key, h.Desc))
			continue
		}
		at[h.Desc] = len(out)
		out = append(out, b)
	}
	return out
}

// paneTitle is the catalog id of a pane's title.
func paneTitle(f focus) string {
	return "tui.pane." + f.String()
}

// shortHelp is the focused pane's keys and the global ones; help and quit
// come last, and shortHelpLine keeps them whatever the width.
func (m *Model) shortHelp() []key.Binding {
	k := m.env.Keys
	b := append([]key.Binding(nil), m.focused().ShortHelp()...)
	switch {
	case m.tasks.Visible():
		b = append([]key.Binding(nil), m.tasks.ShortHelp()...)
	case m.logs.Visible():
		b = append([]key.Binding(nil), m.logs.ShortHelp()...)
	}
	help, lang := k.Help, k.Language
	if c, ok := m.focused().(component.Capturer); ok && c.Captures() {
		help, lang = k.HelpAnyPane, k.LanguageTyping
	}
	b = append(b, k.NextPane, m.tasks.Keys().Open, lang)
	if m.link.State().CanStart() {
		b = append(b, k.Controller)
	}
	return append(b, help, k.Quit)
}

// keepLast is how many bindings at the end of the short help always stay
// (help and quit).
const keepLast = 2

// fitShort drops bindings before the kept tail until the line fits w
// cells, so that help and quit are never cut off.
func fitShort(bs []key.Binding, w int, width func([]key.Binding) int) []key.Binding {
	for len(bs) > keepLast && width(bs) > w {
		i := len(bs) - keepLast - 1
		bs = append(bs[:i:i], bs[i+1:]...)
	}
	return bs
}
