package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/text"
)

// strayMax is how many characters before a command make it look like
// the command with a stray key in front ("]/accept") rather than text.
const strayMax = 2

// strayCommand returns the command text names with a stray key or two
// in front of it ("]/accept" names "/accept"), or "" when it names
// none. Sent as an instruction, such a text would start a new task
// where the person meant a control.
func strayCommand(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	before, after, ok := strings.Cut(f[0], commandPrefix)
	if !ok || before == "" || len([]rune(before)) > strayMax {
		return ""
	}
	name := commandPrefix + strings.ToLower(after)
	if _, ok := controlOf(name); ok || name == "/help" || name == "/changes" || name == constraintCommand {
		return name
	}
	return ""
}

// refuseStray puts a text that looks like a command with a stray key in
// front back in the message box, unsent, and says why.
func (m *Model) refuseStray(s, name string) tea.Cmd {
	m.input.SetValue(s)
	return m.note(conversation.KindError, "keys.stray", "Text", m.env.Clean(text.Truncate(s, 40, m.env.Tail())), "Name", name)
}

// onRefused says that a paste was too large for a message.
func (m *Model) onRefused(r input.RefusedMsg) tea.Cmd {
	id := "keys.paste.refused"
	if r.Dropped {
		id = "keys.paste.refused_dropped"
	}
	return m.note(conversation.KindError, id, "Size", component.Bytes(m.env, r.Size), "Max", component.Bytes(m.env, r.Max))
}
