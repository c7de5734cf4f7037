package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The full help is a view of its own, drawn over the panes: it has every
// key while open but the global function keys, scrolls, and is searched
// with "/" (see helpview.Full).

// openHelp shows the help for the view that has the keys now.
func (m *Model) openHelp() {
	m.helpFrom = m.currentView()
	m.help.Reset()
	m.showHelp = true
}

// onHelpKey handles a key while the help is open.
func (m *Model) onHelpKey(msg tea.KeyMsg) tea.Cmd {
	k := m.env.Keys
	searching := m.help.Searching()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Sequence(m.saveMemory(), m.resetTitle(), tea.Quit)
	case key.Matches(msg, k.LanguageTyping):
		return m.switchLanguage()
	case searching && m.help.Key(m.env, msg, m.lay.bodyH-2):
	case key.Matches(msg, k.HelpAnyPane), key.Matches(msg, k.Help):
		m.showHelp = false
	case m.help.Key(m.env, msg, max(m.lay.bodyH-2, 1)):
	case key.Matches(msg, k.Dismiss):
		m.showHelp = false
	}
	if m.showHelp {
		m.help.Clamp(m.env, m.fullHelp(), m.helpNotes(), m.lay.w, m.lay.bodyH)
	}
	return nil
}

// helpNotes are the paragraphs under the keys: the commands of the
// message box and how much the relay context keeps.
func (m *Model) helpNotes() []string {
	return []string{m.env.T("tui.help.commands"), m.contextNote()}
}
