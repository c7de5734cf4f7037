package tasks

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/i18n"
)

// KeyMap is the task list's own bindings, apart from the window's key
// map so that it plugs into the help as a group of its own. It is built
// for a Localizer, like the window's, and rebuilt on a language switch.
type KeyMap struct {
	// Open opens or closes the list, from anywhere.
	Open key.Binding
	// NewTask stops steering a task: the next message starts a new one.
	// It works from anywhere, the input included.
	NewTask key.Binding
	// In the list.
	Choose   key.Binding // steer the task under the cursor
	NeedsYou key.Binding // show only the tasks that need the person
	Search   key.Binding // find tasks by id or text
}

// DefaultKeyMap returns the bindings with help in loc's language.
func DefaultKeyMap(loc *i18n.Localizer) KeyMap {
	b := func(help, descID string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, loc.T(descID)))
	}
	return KeyMap{
		Open:     b("f4", "tui.tasks.key.open", "f4"),
		NewTask:  b("ctrl+n", "tui.tasks.key.new", "ctrl+n"),
		Choose:   b("enter", "tui.tasks.key.choose", "enter"),
		NeedsYou: b("!", "tui.tasks.key.needs", "!"),
		Search:   b("/", "tui.tasks.key.search", "/"),
	}
}
