package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/helpview"
)

// The key help is built from the one key map: the short line under the
// panes from the keys of the view that has them and the global ones, the
// full help (? or F1) from every view's, each key once: first the view
// it was opened from, then the keys that work everywhere, then each
// other pane in screen order and the changes view. A new pane's keys
// appear here by being listed in its FullHelp (see keyroute.go).

// fullHelp lists every key once, grouped by view, the view the help was
// opened from first.
func (m *Model) fullHelp() []helpview.Group {
	k := m.env.Keys
	seen := map[string]bool{}
	var groups []helpview.Group
	add := func(title string, bs []key.Binding) {
		var keys []key.Binding
		for _, b := range bs {
			if fresh(b, seen) {
				keys = append(keys, b)
			}
		}
		if len(keys) > 0 {
			groups = append(groups, helpview.Group{Title: title, Keys: keys})
		}
	}
	from := m.helpFrom
	fromTitle := m.env.T("keys.help.this_view", "View", m.viewTitle(from))
	add(fromTitle, append(flat(m.viewFor(from).FullHelp()), m.modeKeys(from)...))
	add(m.env.T("tui.help.everywhere"), mergeByDesc(k.NextPane, k.PrevPane, k.Help, k.HelpAnyPane, k.Language,
		k.LanguageTyping, k.Changes, k.Controller, k.Dismiss, k.Quit))
	for _, f := range screenOrder {
		add(m.viewTitle(view{focus: f}), append(flat(m.paneFor(f).FullHelp()), m.modeKeys(view{focus: f})...))
	}
	add(m.viewTitle(view{changes: true}), append(flat(m.changes.FullHelp()), m.modeKeys(view{changes: true})...))
	// The task list and the log view (drawn over the panes, with keys
	// of their own while open).
	add(m.env.T("tui.tasks.help"), flat(m.tasks.FullHelp()))
	add(m.env.T("tui.log.help"), flat(m.logs.FullHelp()))
	add(m.env.T("tui.issues.help"), flat(m.issues.FullHelp()))
	return groups
}

// view names what the keys can belong to: a pane, or the changes view.
type view struct {
	focus   focus
	changes bool
}

// currentView is the view that has the keys now.
func (m *Model) currentView() view {
	if m.changes.Visible() {
		return view{changes: true}
	}
	return view{focus: m.focus}
}

// viewFor returns the component of v.
func (m *Model) viewFor(v view) help.KeyMap {
	if v.changes {
		return m.changes
	}
	return m.paneFor(v.focus)
}

// viewTitle is v's title in the person's language.
func (m *Model) viewTitle(v view) string {
	if v.changes {
		return m.env.T("tui.pane.changes")
	}
	return m.env.T(paneTitle(v.focus))
}

// modeKeys are the keys that move the keys between v and the message
// box (see keyroute.go).
func (m *Model) modeKeys(v view) []key.Binding {
	k := m.env.Keys
	switch {
	case m.opts.ReadOnly:
		return nil
	case v.changes:
		return []key.Binding{k.ViewKeys}
	case v.focus != focusInput:
		return []key.Binding{k.Type}
	}
	return []key.Binding{k.DropPaste}
}

// flat joins a FullHelp's columns into one list.
func flat(groups [][]key.Binding) []key.Binding {
	var out []key.Binding
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
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

// shortHelp is the keys of the view that has them and the global ones;
// help and quit come last, and shortHelpLine keeps them whatever the
// width.
func (m *Model) shortHelp() []key.Binding {
	k := m.env.Keys
	if m.showHelp {
		return append(helpview.Keys(m.env), k.Quit)
	}
	// The key that moves the keys between a view and the message box
	// comes first: the line is cut from the end.
	var b []key.Binding
	help, lang := k.Help, k.Language
	switch {
	case m.tasks.Visible():
		// The open list has every key but F1, F2 and quit.
		b = append(b, m.tasks.ShortHelp()...)
		help, lang = k.HelpAnyPane, k.LanguageTyping
	case m.logs.Visible():
		b = append(b, m.logs.ShortHelp()...)
		help, lang = k.HelpAnyPane, k.LanguageTyping
	case m.issues.Visible() && m.input.Empty():
		b = append(b, m.issues.ShortHelp()...)
	case m.issues.Visible():
		// Text in the message box has the keys; the view's come back
		// when it is sent or cleared.
		b = append(b, m.input.ShortHelp()...)
		help, lang = k.HelpAnyPane, k.LanguageTyping
	case m.changes.Visible() && m.viewHasKeys():
		if !m.opts.ReadOnly {
			b = append(b, k.TypeTab)
		}
		b = append(b, m.changes.ShortHelp()...)
	case m.changes.Visible():
		b = append(b, k.ViewKeys, k.Dismiss)
		b = append(b, m.input.ShortHelp()...)
		help, lang = k.HelpAnyPane, k.LanguageTyping
	default:
		if m.focus != focusInput && !m.opts.ReadOnly && !m.pointed && !listedShort(m.focused(), tea.KeyMsg{Type: tea.KeyEsc}) {
			b = append(b, k.Type)
		}
		b = append(b, m.focused().ShortHelp()...)
		if c, ok := m.focused().(component.Capturer); ok && c.Captures() || m.pointed {
			help, lang = k.HelpAnyPane, k.LanguageTyping
		}
		b = append(b, k.NextPane)
	}
	b = append(b, m.tasks.Keys().Open)
	if m.roles.Has() {
		b = append(b, m.issues.Keys().Open)
	}
	b = append(b, lang)
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
