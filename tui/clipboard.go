package tui

import (
	"encoding/base64"
	"io"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/events"
)

// osc52 puts text on the clipboard through the terminal (OSC 52): it
// works over ssh and in tmux (with set-clipboard on), where the window
// has no clipboard of its own.
func osc52(w io.Writer, text string) tea.Cmd {
	if w == nil {
		return nil
	}
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
	return func() tea.Msg {
		_, _ = io.WriteString(w, seq)
		return nil
	}
}

// onCopy copies an event's payload and says so in the conversation.
func (m *Model) onCopy(msg events.CopyMsg) tea.Cmd {
	return tea.Batch(osc52(m.opts.Terminal, msg.Text),
		m.note(conversation.KindSystem, "tui.conversation.copied", "What", msg.What, "Size", strconv.Itoa(len(msg.Text))))
}
