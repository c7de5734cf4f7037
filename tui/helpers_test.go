package tui

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/text"
)

// keyMsg builds the message a key press produces.
func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "alt+enter":
		return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "f1":
		return tea.KeyMsg{Type: tea.KeyF1}
	case "f2":
		return tea.KeyMsg{Type: tea.KeyF2}
	case "f3":
		return tea.KeyMsg{Type: tea.KeyF3}
	case "f4":
		return tea.KeyMsg{Type: tea.KeyF4}
	case "f5":
		return tea.KeyMsg{Type: tea.KeyF5}
	case "f6":
		return tea.KeyMsg{Type: tea.KeyF6}
	case "ctrl+n":
		return tea.KeyMsg{Type: tea.KeyCtrlN}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// press sends keys to m one at a time and runs the commands they return
// that finish at once (not the feeds' blocking reads), feeding their
// messages back, as the program would.
func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		runQuick(m, cmd)
	}
}

// typeText sends text as typed runes (teatest's Type sends bytes, which
// breaks non-ASCII text).
func typeText(m *Model, s string) {
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
	runQuick(m, cmd)
}

// runQuick runs cmd and the commands its messages return, breadth
// first, as the program would. Test models live in a cancelled context
// (see newTestModel), so the feeds' blocking reads return at once with an
// error the window ignores, and nothing here waits.
func runQuick(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 10000; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if seq, ok := sequence(msg); ok {
			queue = append(queue, seq...)
			continue
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// sequence unpacks tea.Sequence's message (an unexported []tea.Cmd).
func sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeOf(tea.Cmd(nil)) {
		return nil, false
	}
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out, true
}

// viewLines renders m and splits the frame into lines.
func viewLines(m *Model) []string { return strings.Split(m.View(), "\n") }

// checkFrame fails when a frame has more lines than the terminal or a
// line wider than it.
func checkFrame(t testing.TB, frame string, w, h int, what string) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) > h {
		t.Errorf("%s: %d lines, terminal has %d", what, len(lines), h)
	}
	for i, l := range lines {
		if got := text.Width(l); got > w {
			t.Errorf("%s: line %d is %d cells wide, terminal is %d: %q", what, i, got, w, l)
			return
		}
	}
}

// focusOn presses tab until the pane named name has the focus.
func focusOn(t testing.TB, m *Model, name string) {
	t.Helper()
	for range numFocus {
		if m.Focus() == name {
			return
		}
		press(t, m, "tab")
	}
	t.Fatalf("tab never reached %s", name)
}
