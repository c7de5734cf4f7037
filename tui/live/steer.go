package live

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Steering is what a relay offers a window with many tasks, beyond
// Relay: a follow-up of a named task, and a control request about a
// named task instead of the controller's current one. It is a separate
// interface so that a relay without it still serves the window, which
// then sends only new tasks and controls of the current run.
type Steering interface {
	// FollowUp sends text as a follow-up of task taskID (its run runID,
	// or its latest run when runID is empty); the Ack comes once the
	// follow-up is durable in the ledger.
	FollowUp(ctx context.Context, taskID, runID, text string) (Ack, error)
	// ControlTask forwards a control request about task taskID (and run
	// runID, when set); the controller decides.
	ControlTask(ctx context.Context, kind ControlKind, taskID, runID, reason string) (Ack, error)
}

// codeNoSteering is the window's own code for a follow-up through a
// relay that cannot send one.
const codeNoSteering = "unsupported"

// FollowUp forwards text as a follow-up of task taskID, giving up after
// timeout. Its outcome is a ForwardedMsg, like an instruction's.
func FollowUp(ctx context.Context, r Relay, seq int, taskID, runID, text string, timeout time.Duration) tea.Cmd {
	return func() tea.Msg {
		s, ok := r.(Steering)
		if !ok {
			return ForwardedMsg{Seq: seq, Text: text, Err: &Error{Code: codeNoSteering}}
		}
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ack, err := s.FollowUp(c, taskID, runID, text)
		return ForwardedMsg{Seq: seq, Text: text, Ack: ack, Err: err}
	}
}

// ControlTask forwards a control request about task taskID, giving up
// after timeout; through a relay without Steering it is a control of
// the current run.
func ControlTask(ctx context.Context, r Relay, seq int, kind ControlKind, taskID, runID, reason string, timeout time.Duration) tea.Cmd {
	s, ok := r.(Steering)
	if !ok || taskID == "" {
		return Control(ctx, r, seq, kind, reason, timeout)
	}
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ack, err := s.ControlTask(c, kind, taskID, runID, reason)
		return ControlledMsg{Seq: seq, Kind: kind, Ack: ack, Err: err}
	}
}
