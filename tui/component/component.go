// Package component is the contract every pane of the window implements,
// and the read-only environment panes are built with.
package component

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// Component is one pane: a tea.Model that lists its keys for the help
// line and draws itself in exactly the size its parent gives it. Panes
// are pointers: Update changes the pane in place and returns it.
type Component interface {
	tea.Model
	help.KeyMap
	// SetSize gives the pane its box, title line included. View must
	// then return exactly h lines of exactly w cells.
	SetSize(w, h int)
}

// Focuser is implemented by panes that draw or behave differently when
// they have the keyboard focus.
type Focuser interface {
	SetFocused(bool)
}

// Capturer is implemented by panes that want every key while they are in
// a mode of their own (text entry, a detail view): the root then sends
// keys to them before acting on global keys such as Tab or "?".
type Capturer interface {
	Captures() bool
}

// EnvMsg carries a new environment to every pane, after the person
// switched language: panes swap it in and redraw.
type EnvMsg struct {
	Env *Env
}

// Typist is implemented by panes that take typed text (the input, a
// search field). While Typing, the root gives them every printable key
// (IsText) before any binding is looked at: a sentence that arrives in
// one read, pasted without bracketed paste or typed by an IME, is split
// by Bubble Tea at spaces, and its words ("ctrl+c", "enter") would
// otherwise match bindings.
type Typist interface {
	Typing() bool
}

// IsText reports whether msg is printable text rather than a key: runes
// (however many) or a space, without Alt. Pasted text is text too.
func IsText(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes:
		return !msg.Alt || msg.Paste
	case tea.KeySpace:
		return !msg.Alt
	}
	return false
}
