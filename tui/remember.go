package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/memory"
)

// memState is where the window's memory file stands.
type memState struct {
	loaded  bool   // the file was read (or there was none): saving may start
	saving  bool   // a save is out
	changes uint64 // the conversation's change count at the last save
	history int    // the history's length at the last save
}

// onMemory restores what the last run of the window remembered, and
// follows saves. Trouble with the file is shown, never fatal.
func (m *Model) onMemory(msg memory.Msg) tea.Cmd {
	var err error
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case memory.LoadedMsg:
		m.mem.loaded, err = true, msg.Err
		if msg.Err == nil {
			cmds = append(cmds, m.tell(m.conv, conversation.RestoreMsg{Entries: msg.Snapshot.Conversation}),
				m.tell(m.input, input.RestoreMsg{History: msg.Snapshot.History}))
			m.mem.changes, m.mem.history = m.conv.Changes(), len(msg.Snapshot.History)
		}
	case memory.SavedMsg:
		m.mem.saving, err = false, msg.Err
	}
	item := banner.Item{}
	if err != nil {
		m.opts.Logger.Debug("window memory", "err", err)
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.banner.memory", "Error", m.env.Clean(err.Error()))}
	}
	return tea.Batch(append(cmds, m.tell(m.banner, banner.SetMsg{Key: "memory", Item: item}))...)
}

// saveMemory saves the conversation and the history when they changed
// since the last save (never before the file was read: that would
// overwrite it).
func (m *Model) saveMemory() tea.Cmd {
	if m.opts.Memory == nil || !m.mem.loaded || m.mem.saving {
		return nil
	}
	hist := m.input.History()
	if m.conv.Changes() == m.mem.changes && len(hist) == m.mem.history {
		return nil
	}
	m.mem.saving, m.mem.changes, m.mem.history = true, m.conv.Changes(), len(hist)
	return memory.Save(m.life, m.opts.Memory, memory.Encode(m.conv.Saved(), hist))
}
