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

// screenOrder is the order Tab visits the panes: as they sit on the
// screen, the left column top to bottom, then the right one, then the
// input under them.
var screenOrder = [numFocus]focus{focusPipeline, focusHeartbeat, focusLeases, focusConversation, focusEvents, focusInput}

// cycle returns the focus d steps from f in screen order, skipping the
// input when the window is read-only.
func (f focus) cycle(d int, readOnly bool) focus {
	i := 0
	for j, g := range screenOrder {
		if g == f {
			i = j
		}
	}
	for {
		i = (i + d + len(screenOrder)) % len(screenOrder)
		if n := screenOrder[i]; !(readOnly && n == focusInput) {
			return n
		}
	}
}
