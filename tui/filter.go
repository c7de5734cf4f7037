package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// shiftEnter are the ways terminals report Shift+Enter that Bubble Tea v1
// does not decode (it delivers them as an unknown CSI sequence): the
// kitty keyboard protocol's CSI 13;2u and xterm's modifyOtherKeys
// CSI 27;2;13~. Bubble Tea prints the unknown sequence's parameter bytes
// after "?CSI".
var shiftEnter = map[string]bool{
	fmt.Sprintf("?CSI%+v?", []byte("13;2u")):    true,
	fmt.Sprintf("?CSI%+v?", []byte("27;2;13~")): true,
}

// Filter is a tea.WithFilter function that turns the Shift+Enter
// sequences into Alt+Enter, the key that makes a new line: with the
// filter, Shift+Enter works in every terminal that reports it.
func Filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if s, ok := msg.(fmt.Stringer); ok {
		if _, isKey := msg.(tea.KeyMsg); !isKey && shiftEnter[s.String()] {
			return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
		}
	}
	return msg
}
