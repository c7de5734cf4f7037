// Package keys holds the window's one key map. Help texts are translated,
// so the map is built for a Localizer and rebuilt when the person switches
// language; there is no package-level key map.
package keys

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/i18n"
)

// KeyMap is every binding of the window. Components match keys with
// key.Matches against these fields and list them in their help.
type KeyMap struct {
	// Global: these work whatever has the focus.
	Quit           key.Binding
	NextPane       key.Binding
	PrevPane       key.Binding
	Help           key.Binding
	HelpAnyPane    key.Binding // F1: help even while typing
	Language       key.Binding
	LanguageTyping key.Binding // F2: language even while typing
	Controller     key.Binding // start a new controller when none is live
	Dismiss        key.Binding // close help, detail, or a banner
	Changes        key.Binding // F3: open or close the changes view

	// Where keys go (see tui/keyroute.go): a pane that has the keys
	// gives them back to the message box with Type; the changes view
	// takes them with ViewKeys and gives them back with TypeTab.
	Type     key.Binding
	ViewKeys key.Binding
	TypeTab  key.Binding

	// Changes view.
	PrevFile key.Binding
	NextFile key.Binding

	// Input.
	Send        key.Binding
	Newline     key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding
	DropPaste   key.Binding // drop a pasted text held as a block

	// Scrolling panes.
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding

	// Events.
	Follow         key.Binding
	Detail         key.Binding
	FilterType     key.Binding
	FilterSeverity key.Binding
	FilterStep     key.Binding
	FilterClear    key.Binding
	Search         key.Binding // find events by text
	Copy           key.Binding // copy the selected event's payload
	Fold           key.Binding // fold or unfold worker output

	// Leases.
	LeasesAll key.Binding // show the ended leases too, or hide them
}

// DefaultKeyMap returns the bindings with help in loc's language.
func DefaultKeyMap(loc *i18n.Localizer) *KeyMap {
	b := func(help string, descID string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, loc.T(descID)))
	}
	return &KeyMap{
		Quit:           b("ctrl+c", "tui.key.quit", "ctrl+c"),
		NextPane:       b("tab", "tui.key.next_pane", "tab"),
		PrevPane:       b("shift+tab", "tui.key.prev_pane", "shift+tab"),
		Help:           b("?", "tui.key.help", "?"),
		HelpAnyPane:    b("f1", "tui.key.help", "f1"),
		Language:       b("L", "tui.key.language", "L"),
		LanguageTyping: b("f2", "tui.key.language", "f2"),
		Controller:     b("ctrl+r", "tui.key.controller", "ctrl+r"),
		Dismiss:        b("esc", "tui.key.dismiss", "esc"),
		Changes:        b("f3", "tui.key.changes", "f3"),
		Type:           b("esc", "keys.key.type", "esc"),
		ViewKeys:       b("tab", "keys.key.view_keys", "tab"),
		TypeTab:        b("tab", "keys.key.type", "tab"),
		PrevFile:       b("←/[", "tui.key.prev_file", "left", "["),
		NextFile:       b("→/]", "tui.key.next_file", "right", "]"),

		Send:        b("enter", "tui.key.send", "enter"),
		Newline:     b("alt+enter/ctrl+j", "tui.key.newline", "alt+enter", "shift+enter", "ctrl+j"),
		HistoryPrev: b("up", "tui.key.history_prev", "up"),
		HistoryNext: b("down", "tui.key.history_next", "down"),
		DropPaste:   b("backspace", "keys.key.drop_paste", "backspace"),

		Up:       b("up/k", "tui.key.up", "up", "k"),
		Down:     b("down/j", "tui.key.down", "down", "j"),
		PageUp:   b("pgup", "tui.key.page_up", "pgup", "ctrl+u"),
		PageDown: b("pgdn", "tui.key.page_down", "pgdown", "ctrl+d"),
		Top:      b("home/g", "tui.key.top", "home", "g"),
		Bottom:   b("end/G", "tui.key.bottom", "end", "G"),

		Follow:         b("f", "tui.key.follow", "f"),
		Detail:         b("enter", "tui.key.detail", "enter"),
		FilterType:     b("t", "tui.key.filter_type", "t"),
		FilterSeverity: b("s", "tui.key.filter_severity", "s"),
		FilterStep:     b("p", "tui.key.filter_step", "p"),
		FilterClear:    b("x", "tui.key.filter_clear", "x"),
		Search:         b("/", "tui.key.search", "/"),
		Copy:           b("y", "tui.key.copy", "y"),
		Fold:           b("o", "tui.key.fold", "o"),

		LeasesAll: b("a", "tui.key.leases_all", "a"),
	}
}
