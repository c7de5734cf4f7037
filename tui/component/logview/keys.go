package logview

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/i18n"
)

// KeyMap is the log view's own bindings, apart from the window's key
// map so that it plugs into the help as a group of its own. It is built
// for a Localizer and rebuilt on a language switch.
type KeyMap struct {
	// Open opens or closes the log view, from anywhere.
	Open key.Binding
	// In the view (scrolling uses the window's scroll keys).
	Follow key.Binding // stick to the end as the log grows
	Search key.Binding // find lines
	Next   key.Binding // the next line that matches the search
	Prev   key.Binding // the previous one
	Stream key.Binding // stdout or stderr
}

// DefaultKeyMap returns the bindings with help in loc's language.
func DefaultKeyMap(loc *i18n.Localizer) KeyMap {
	b := func(help, descID string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, loc.T(descID)))
	}
	return KeyMap{
		Open:   b("f5", "tui.log.key.open", "f5"),
		Follow: b("f", "tui.log.key.follow", "f"),
		Search: b("/", "tui.log.key.search", "/"),
		Next:   b("n", "tui.log.key.next", "n"),
		Prev:   b("N", "tui.log.key.prev", "N"),
		Stream: b("e", "tui.log.key.stream", "e"),
	}
}
