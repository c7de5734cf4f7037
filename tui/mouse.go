package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// wheelLines is how many lines one wheel notch scrolls.
const wheelLines = 3

// mouse handles a click (it focuses the pane under it) and the wheel (it
// focuses the pane under it and scrolls it as the arrow keys do). The
// pointer's focus is not the keys': text typed next still goes to the
// message box (see keyroute.go), so a click never swallows a message.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	f, ok := m.paneAt(msg.X, msg.Y)
	if !ok || (m.opts.ReadOnly && f == focusInput) {
		return nil
	}
	var k tea.KeyType
	switch msg.Button {
	case tea.MouseButtonLeft:
		m.point(f)
		return nil
	case tea.MouseButtonWheelUp:
		k = tea.KeyUp
	case tea.MouseButtonWheelDown:
		k = tea.KeyDown
	default:
		return nil
	}
	if f == focusInput {
		return nil // the wheel does not browse the input's history
	}
	m.point(f)
	cmds := make([]tea.Cmd, 0, wheelLines)
	for range wheelLines {
		cmds = append(cmds, m.tell(m.focused(), tea.KeyMsg{Type: k}))
	}
	return tea.Batch(cmds...)
}

// paneAt returns the focusable pane drawn at cell (x, y).
func (m *Model) paneAt(x, y int) (focus, bool) {
	l := m.lay
	top := 1 + l.bannerH // under the route bar and the banner
	switch {
	case l.mode == modeTooSmall || m.showHelp || y < top:
		return 0, false
	case y >= top+l.bodyH:
		if y < top+l.bodyH+l.inputH {
			return focusInput, true
		}
		return 0, false
	case l.mode == modeSingle:
		f := m.focus
		if f == focusInput {
			f = focusConversation
		}
		if y < top+l.singleHBH {
			f = focusHeartbeat
		}
		return f, true
	}
	row := y - top
	if x < l.leftW {
		switch {
		case row < l.pipeH:
			return focusPipeline, true
		case row < l.pipeH+l.hbH:
			return focusHeartbeat, true
		}
		return focusLeases, true
	}
	if x < l.leftW+l.gap {
		return 0, false
	}
	if row < l.convH {
		return focusConversation, true
	}
	return focusEvents, true
}
