package issues

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/i18n"
)

// KeyMap is the issues view's own bindings, apart from the window's key
// map so that it plugs into the help as a group of its own. None is a
// letter: while the view is open, what is typed goes to the message box
// (a /comment for the issue shown), so only keys that type nothing move
// in the view. It is built for a Localizer and rebuilt on a language
// switch.
type KeyMap struct {
	// Open opens or closes the view, from anywhere.
	Open key.Binding
	// In the view.
	Up       key.Binding // the issue above, or scroll the thread
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Read     key.Binding // read the thread of the issue under the cursor
	// Log opens the log view on the Worker of the issue shown (the log
	// view's own key, handled by the window, listed here where it does
	// something else).
	Log  key.Binding
	Back key.Binding // back to the list, or close the view
}

// DefaultKeyMap returns the bindings with help in loc's language.
func DefaultKeyMap(loc *i18n.Localizer) KeyMap {
	b := func(help, descID string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, loc.T(descID)))
	}
	return KeyMap{
		Open:     b("f6", "tui.issues.key.open", "f6"),
		Up:       b("↑", "tui.issues.key.up", "up"),
		Down:     b("↓", "tui.issues.key.down", "down"),
		PageUp:   b("pgup", "tui.issues.key.page_up", "pgup"),
		PageDown: b("pgdn", "tui.issues.key.page_down", "pgdown"),
		Read:     b("enter", "tui.issues.key.read", "enter"),
		Log:      b("f5", "tui.issues.key.log", "f5"),
		Back:     b("esc", "tui.issues.key.back", "esc"),
	}
}
