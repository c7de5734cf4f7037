package live

import "time"

// LedgerMsg carries one update of the ledger feed. Err is set when the
// feed itself failed; the window then stops waiting on it.
type LedgerMsg struct {
	Update LedgerUpdate
	Err    error
}

// RelayMsg carries one notice or connection change from the relay.
type RelayMsg struct {
	Update RelayUpdate
	Err    error
}

// TickMsg is the window's one clock tick (1 Hz): ages and countdowns are
// computed from Now, never from a clock read in View.
type TickMsg struct {
	Now time.Time
}

// ForwardedMsg is the outcome of forwarding an instruction. Seq is the
// window's own number for the instruction, to match it with its entry in
// the conversation.
type ForwardedMsg struct {
	Seq  int
	Text string
	Ack  Ack
	Err  error
}

// ControlledMsg is the outcome of forwarding a control request.
type ControlledMsg struct {
	Seq  int
	Kind ControlKind
	Ack  Ack
	Err  error
}

// ObservedMsg is the outcome of the first observe request.
type ObservedMsg struct {
	Err error
}

// ProbedMsg says whether a live controller owns the root.
type ProbedMsg struct {
	Probe Probe
	Err   error
}

// StartedMsg says whether the window could start a controller.
type StartedMsg struct {
	Proc Process
	Err  error
}

// ExitedMsg says that a controller the window started has exited.
type ExitedMsg struct {
	PID  int
	Exit Exit
	Err  error
}
