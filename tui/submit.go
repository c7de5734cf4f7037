package tui

import (
	"strconv"
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

// submit forwards what the person sent: plain text as an instruction, a
// known command as a control request.
func (m *Model) submit(text string) tea.Cmd {
	if text == "" {
		return nil
	}
	if rest, ok := strings.CutPrefix(text, commandPrefix+commandPrefix); ok {
		return m.forward(commandPrefix + rest)
	}
	if strings.HasPrefix(text, commandPrefix) {
		return m.command(text)
	}
	if name := strayCommand(text); name != "" {
		return m.refuseStray(text, name)
	}
	return m.forward(text)
}

// forward sends an instruction.
func (m *Model) forward(text string) tea.Cmd {
	m.seq++
	task := m.steer.TaskID
	sent := m.tell(m.conv, conversation.SentMsg{Seq: m.seq, At: m.opts.Now(), Text: text, Task: task,
		FollowUp: task != "" && m.opts.Relay != nil})
	rc := m.withContext(m.rctx.Instruction(m.life, text))
	switch {
	case m.opts.Relay == nil:
		return tea.Batch(sent, rc, m.undeliverable(m.seq, text))
	case task != "":
		// A follow-up of the steered task, not a task of its own.
		return tea.Batch(sent, rc, live.FollowUp(m.life, m.opts.Relay, m.seq, task, "", text, m.opts.ForwardTimeout))
	}
	return tea.Batch(sent, rc, live.Forward(m.life, m.opts.Relay, m.seq, text, m.opts.ForwardTimeout))
}

// command forwards a control request, or explains the commands.
func (m *Model) command(text string) tea.Cmd {
	name := strings.ToLower(strings.Fields(text)[0])
	if name == "/help" {
		m.openHelp()
		return nil
	}
	if name == "/changes" {
		return m.toggleChanges()
	}
	if name == constraintCommand {
		return m.constraint(text)
	}
	if kind, reason, ok := m.issueCommand(name, text); ok {
		return m.sendControl(text, kind, "", reason)
	}
	kind, ok := controlOf(name)
	if !ok {
		return m.note(conversation.KindError, "tui.conversation.unknown_command", "Name", m.env.Clean(name))
	}
	// The words after the command are its reason (a reject's why); the
	// controller records them, the window only forwards.
	reason := ""
	if kind == live.ControlReject || kind == live.ControlIssue {
		reason = commandArgs(text)
	}
	// A steered task is the one the request is about; otherwise the
	// controller's current run.
	return m.sendControl(text, kind, m.steer.TaskID, reason)
}

// sendControl forwards a control request about task (empty: the
// controller's current run, or none) and shows text as sent.
func (m *Model) sendControl(text string, kind live.ControlKind, task, reason string) tea.Cmd {
	m.seq++
	sent := m.tell(m.conv, conversation.SentMsg{Seq: m.seq, At: m.opts.Now(), Text: text, Task: task})
	if m.opts.Relay == nil {
		return tea.Batch(sent, m.undeliverable(m.seq, text))
	}
	return tea.Batch(sent, live.ControlTask(m.life, m.opts.Relay, m.seq, kind, task, "", reason, m.opts.ForwardTimeout))
}

// commandArgs is what follows a command's name.
func commandArgs(text string) string {
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), strings.Fields(text)[0]))
}

// undeliverable answers a message at once when the window has no relay.
func (m *Model) undeliverable(seq int, text string) tea.Cmd {
	msg := live.ForwardedMsg{Seq: seq, Text: text, Err: &live.Error{Code: "unavailable"}}
	return m.broadcast(msg)
}

// kindSystem is the kind of the window's own notes.
const kindSystem = conversation.KindSystem

// note tells the conversation to record a note of the window's own, by
// catalog id (so that a language switch redraws it) with its arguments
// as key, value pairs.
func (m *Model) note(kind conversation.Kind, id string, kv ...string) tea.Cmd {
	return m.tell(m.conv, conversation.NoteMsg{Kind: kind, At: m.opts.Now(), ID: id, Args: kv})
}

// noteConn writes connection changes into the conversation, so that the
// person sees at once when the controller went away and when it is back.
func (m *Model) noteConn(c live.ConnState) tea.Cmd {
	switch c.Phase {
	case live.ConnConnected:
		return m.note(kindSystem, "tui.conversation.connected")
	case live.ConnDisconnected:
		return m.note(conversation.KindError, "tui.conversation.disconnected", "Why", component.ErrorText(m.env, c.Err))
	}
	return nil
}

// noteLink writes controller start-up and exits into the conversation.
func (m *Model) noteLink(s link.State) tea.Cmd {
	pid := strconv.Itoa(s.PID)
	switch s.Phase {
	case link.Waiting:
		return m.note(kindSystem, "tui.conversation.started", "PID", pid)
	case link.Exited:
		return m.note(conversation.KindError, "tui.conversation.exited", "PID", pid)
	case link.Failed:
		return m.note(conversation.KindError, "tui.conversation.start_failed", "Why", component.ErrorText(m.env, s.Err))
	}
	return nil
}
