package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
)

// Where a key goes. The rule the help states, kept in one place:
//
//   - Printable text goes to the message box. Letters are keys only in
//     a mode shown on screen: the help (drawn over the panes), the
//     changes view while it has the keys (its frame has the focus mark,
//     the message box has none), a pane reached with Tab (its focus
//     mark), or a pane's own text mode (a search line drawn in it).
//   - In such a mode a key goes to the view only when the view's help
//     lists it; any other printable key is text for the message box,
//     which takes the keys back: nothing typed is lost. So a view's keys
//     are exactly the ones its help lists, and a new pane's keys plug in
//     by listing them in its FullHelp (and ShortHelp for esc).
//   - A click or a wheel focuses a pane for the pointer, not for
//     letters: what is typed next still goes to the message box.
//   - "?" opens the help from an empty message box (in a message it is
//     text); F1 opens it always.
//   - Enter and Tab amid a paste that came as keys (no bracketed paste)
//     are the paste's line ends and tabs (pastekeys.go).

// routeKey sends a key where it goes.
func (m *Model) routeKey(msg tea.KeyMsg) tea.Cmd {
	if m.showHelp {
		return m.onHelpKey(msg)
	}
	// The task list and the log view, while open, have every key but
	// quit, F1 and F2; their own keys open them from anywhere.
	if cmd, ok := m.taskKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.logKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.issueKey(msg); ok {
		return cmd
	}
	if t, ok := m.focused().(component.Typist); ok && t.Typing() && component.IsText(msg) && !m.viewHasKeys() {
		if m.focus == focusInput && m.helpOnEmpty(msg) {
			return nil
		}
		return m.tell(m.focused(), msg)
	}
	capturing := m.capturing()
	if !capturing && msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Bubble Tea delivers letters that arrive in one read as one
		// message ("kk"); outside a text field each is a key of its own.
		return m.eachRune(msg)
	}
	if cmd, ok := m.globalKey(msg, capturing); ok {
		return cmd
	}
	if m.changes.Visible() {
		return m.changesKey(msg)
	}
	if m.focus == focusInput {
		return m.tell(m.input, msg)
	}
	return m.paneKey(msg)
}

// capturing reports whether the focused pane is in a text mode of its
// own, in which keys such as "?" and Tab are text.
func (m *Model) capturing() bool {
	if m.viewHasKeys() {
		return false
	}
	c, ok := m.focused().(component.Capturer)
	return ok && c.Captures()
}

// globalKey handles the keys that work in every view; ok is false for
// any other key.
func (m *Model) globalKey(msg tea.KeyMsg, capturing bool) (tea.Cmd, bool) {
	k := m.env.Keys
	switch {
	case key.Matches(msg, k.Quit):
		// What was said since the last save reaches the file first, and
		// the terminal's title is given back.
		return tea.Sequence(m.saveMemory(), m.resetTitle(), tea.Quit), true
	case key.Matches(msg, k.HelpAnyPane), !capturing && key.Matches(msg, k.Help):
		m.openHelp()
	case key.Matches(msg, k.Changes), m.changes.Visible() && key.Matches(msg, k.Dismiss):
		return m.toggleChanges(), true
	case key.Matches(msg, k.LanguageTyping), !capturing && key.Matches(msg, k.Language):
		return m.switchLanguage(), true
	case key.Matches(msg, k.Controller) && m.link.State().CanStart():
		return m.onLinkStart(), true
	case m.changes.Visible():
		return nil, false // Tab belongs to the changes view
	case key.Matches(msg, k.NextPane):
		m.setFocus(m.focus.cycle(1, m.opts.ReadOnly))
	case key.Matches(msg, k.PrevPane):
		m.setFocus(m.focus.cycle(-1, m.opts.ReadOnly))
	default:
		return nil, false
	}
	return nil, true
}

// changesKey handles a key while the changes view is open: Tab moves
// the keys between the view and the message box; with the view's keys,
// what its help lists scrolls and picks files, and other text starts a
// message.
func (m *Model) changesKey(msg tea.KeyMsg) tea.Cmd {
	k := m.env.Keys
	if m.opts.ReadOnly {
		return m.tell(m.changes, msg)
	}
	switch {
	case key.Matches(msg, k.ViewKeys):
		m.viewKeys = !m.viewKeys
		m.applyFocus()
		return nil
	case !m.viewKeys:
		return m.tell(m.input, msg)
	case listed(m.changes, msg):
		return m.tell(m.changes, msg)
	}
	m.viewKeys = false
	m.applyFocus()
	return m.tell(m.input, msg)
}

// paneKey handles a key for a pane that has the focus: a pane reached
// with Tab takes the keys its help lists; esc (unless the pane lists it
// now, as a detail view does) and any other text go back to the message
// box, and so does text after a click.
func (m *Model) paneKey(msg tea.KeyMsg) tea.Cmd {
	p := m.focused()
	k := m.env.Keys
	if m.capturing() || m.opts.ReadOnly {
		return m.tell(p, msg)
	}
	text := component.IsText(msg)
	switch {
	case m.pointed && text:
	case key.Matches(msg, k.Type) && !listedShort(p, msg):
		m.setFocus(focusInput)
		return nil
	case listed(p, msg) || !text:
		return m.tell(p, msg)
	}
	m.setFocus(focusInput)
	return m.tell(m.input, msg)
}

// helpOnEmpty opens the help for "?" typed in an empty message box, and
// reports whether it did.
func (m *Model) helpOnEmpty(msg tea.KeyMsg) bool {
	if msg.Paste || !m.input.Empty() || !key.Matches(msg, m.env.Keys.Help) {
		return false
	}
	m.openHelp()
	return true
}

// viewHasKeys reports whether an open view (the changes view) has the
// keys rather than the message box.
func (m *Model) viewHasKeys() bool { return m.changes.Visible() && (m.viewKeys || m.opts.ReadOnly) }

// listed reports whether p's full help lists a binding msg matches.
func listed(p help.KeyMap, msg tea.KeyMsg) bool {
	for _, g := range p.FullHelp() {
		for _, b := range g {
			if key.Matches(msg, b) {
				return true
			}
		}
	}
	return false
}

// listedShort reports whether p's short help (which says what the pane
// is doing now, a detail view's esc) lists a binding msg matches.
func listedShort(p help.KeyMap, msg tea.KeyMsg) bool {
	for _, b := range p.ShortHelp() {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// eachRune handles the letters of msg one by one.
func (m *Model) eachRune(msg tea.KeyMsg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(msg.Runes))
	for _, r := range msg.Runes {
		cmds = append(cmds, m.routeKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// setFocus gives the keys to pane f, as Tab does.
func (m *Model) setFocus(f focus) {
	m.focus, m.pointed = f, false
	m.applyFocus()
}

// point focuses pane f for the pointer (a click, the wheel): keys that
// move in it work, typed text still goes to the message box.
func (m *Model) point(f focus) {
	if f == m.focus {
		return
	}
	m.focus, m.pointed = f, f != focusInput
	m.applyFocus()
}
