package tui

import (
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/tui/live"
)

// The issues view (F6) shows the team's issues by role and state over
// the panes, and the thread of one. Unlike the task list and the log
// view it takes no letters: while it is open the message box keeps what
// is typed, so that "/comment TEXT" (or /label, /retry, /close) is sent
// for the issue shown; its own keys (arrows, page keys, enter, esc) are
// the ones its help lists, and they reach it only while the message box
// is empty.

// issueKey handles the issues view's keys: F6 from anywhere, and the
// view's listed keys while it is open and nothing is typed. ok reports
// that it took msg.
func (m *Model) issueKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	ik := m.issues.Keys()
	switch {
	case key.Matches(msg, ik.Open) && m.issues.Visible():
		m.issues.Close()
		return nil, true
	case key.Matches(msg, ik.Open):
		// What is typed while the view is open goes to the message box.
		m.setFocus(focusInput)
		return m.issues.Show(), true
	case !m.issues.Visible(), !m.input.Empty() && !m.opts.ReadOnly, !listed(m.issues, msg):
		return nil, false
	}
	cmd = m.tell(m.issues, msg)
	if key.Matches(msg, ik.Read) {
		// A thread was opened: read it now, not at the next tick.
		cmd = tea.Batch(cmd, m.issues.Refresh())
	}
	return cmd, true
}

// issueCommand maps "/comment", "/label", "/close" (and "/retry #N", or
// "/retry" while the issues view shows an issue) to the control request
// that changes an issue, with its reason "#N REST". Without a number the
// issue is the one the view shows. ok is false for any other command.
func (m *Model) issueCommand(name, text string) (kind live.ControlKind, reason string, ok bool) {
	args := commandArgs(text)
	id, rest := issueRef(args)
	switch name {
	case "/comment":
		kind = live.ControlComment
	case "/label":
		kind = live.ControlLabel
	case "/close":
		kind = live.ControlClose
	case "/retry":
		if id == 0 && m.issues.Target() == 0 {
			return "", "", false // a run's retry
		}
		// A "/retry" comment is how a person sends an issue back to its
		// Lead (the Lead's protocol).
		kind, rest = live.ControlComment, strings.TrimSpace(roster.RetryCommand+" "+rest)
	default:
		return "", "", false
	}
	if id == 0 {
		id = m.issues.Target()
	}
	if id == 0 {
		// No issue: the controller says how to name one.
		return kind, args, true
	}
	return kind, strings.TrimSpace("#" + strconv.FormatInt(id, 10) + " " + rest), true
}

// issueRef splits a leading "#N" off args (0 when there is none).
func issueRef(args string) (int64, string) {
	first, rest, _ := strings.Cut(args, " ")
	if !strings.HasPrefix(first, "#") {
		return 0, args
	}
	id, err := strconv.ParseInt(first[1:], 10, 64)
	if err != nil || id <= 0 {
		return 0, args
	}
	return id, strings.TrimSpace(rest)
}
