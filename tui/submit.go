package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
)

// commandPrefix starts a control request typed in the input ("/retry");
// "//" at the start forwards the rest as text.
const commandPrefix = "/"

// controlOf maps a typed command to the control request it forwards.
// Nothing here executes anything: the controller decides what a request
// means for its run. The set is closed; any other command is refused in
// the window and never sent.
func controlOf(name string) (live.ControlKind, bool) {
	for _, k := range live.ControlKinds() {
		if name == commandPrefix+string(k) {
			return k, true
		}
	}
	return "", false
}

// submit takes the input's text and forwards it: plain text as an
// instruction, a known command as a control request.
func (m *Model) submit() tea.Cmd {
	text := m.input.Submit()
	if text == "" {
		return nil
	}
	if rest, ok := strings.CutPrefix(text, commandPrefix+commandPrefix); ok {
		return m.forward(commandPrefix + rest)
	}
	if strings.HasPrefix(text, commandPrefix) {
		return m.command(text)
	}
	return m.forward(text)
}

// forward sends an instruction.
func (m *Model) forward(text string) tea.Cmd {
	m.seq++
	m.conv.Sent(m.seq, m.opts.Now(), text)
	rc := m.withContext(m.rctx.Instruction(m.life, text))
	if m.opts.Relay == nil {
		return tea.Batch(rc, m.undeliverable(m.seq, text))
	}
	return tea.Batch(rc, live.Forward(m.life, m.opts.Relay, m.seq, text, m.opts.ForwardTimeout))
}

// command forwards a control request, or explains the commands.
func (m *Model) command(text string) tea.Cmd {
	name := strings.ToLower(strings.Fields(text)[0])
	if name == "/help" {
		m.showHelp = true
		return nil
	}
	kind, ok := controlOf(name)
	if !ok {
		m.conv.Note(conversation.KindError, m.opts.Now(), m.env.T("tui.conversation.unknown_command", "Name", m.env.Clean(name)))
		return nil
	}
	m.seq++
	m.conv.Sent(m.seq, m.opts.Now(), text)
	if m.opts.Relay == nil {
		return m.undeliverable(m.seq, text)
	}
	return live.Control(m.life, m.opts.Relay, m.seq, kind, m.opts.ForwardTimeout)
}

// undeliverable answers a message at once when the window has no relay.
func (m *Model) undeliverable(seq int, text string) tea.Cmd {
	msg := live.ForwardedMsg{Seq: seq, Text: text, Err: &live.Error{Code: "unavailable"}}
	m.broadcast(msg)
	return nil
}

// noteConn writes connection changes into the conversation, so that the
// person sees at once when the controller went away and when it is back.
func (m *Model) noteConn(c live.ConnState) {
	env := m.env
	switch c.Phase {
	case live.ConnConnected:
		m.conv.Note(conversation.KindSystem, m.opts.Now(), env.T("tui.conversation.connected"))
	case live.ConnDisconnected:
		m.conv.Note(conversation.KindError, m.opts.Now(), env.T("tui.conversation.disconnected",
			"Why", component.ErrorText(env, c.Err)))
	}
}

// noteLink writes controller start-up and exits into the conversation.
func (m *Model) noteLink(s link.State) {
	env := m.env
	switch s.Phase {
	case link.Waiting:
		m.conv.Note(conversation.KindSystem, m.opts.Now(), env.T("tui.conversation.started", "PID", s.PID))
	case link.Exited:
		m.conv.Note(conversation.KindError, m.opts.Now(), env.T("tui.conversation.exited", "PID", s.PID))
	case link.Failed:
		m.conv.Note(conversation.KindError, m.opts.Now(), env.T("tui.conversation.start_failed",
			"Why", component.ErrorText(env, s.Err)))
	}
}
