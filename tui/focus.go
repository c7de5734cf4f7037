package tui

// focus names the pane that has the keyboard.
type focus int

const (
	focusInput focus = iota
	focusConversation
	focusEvents
	focusPipeline
	focusHeartbeat
	focusLeases
	numFocus
)

// String names the focus, for logs and tests.
func (f focus) String() string {
	switch f {
	case focusInput:
		return "input"
	case focusConversation:
		return "conversation"
	case focusEvents:
		return "events"
	case focusPipeline:
		return "pipeline"
	case focusHeartbeat:
		return "heartbeat"
	case focusLeases:
		return "leases"
	}
	return "none"
}

// cycle returns the focus d steps from f, skipping the input when the
// window is read-only.
func (f focus) cycle(d int, readOnly bool) focus {
	n := f
	for {
		n = focus((int(n) + d + int(numFocus)) % int(numFocus))
		if !(readOnly && n == focusInput) {
			return n
		}
	}
}
