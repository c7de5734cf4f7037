package input

import (
	"testing"
	"time"

	"github.com/daokit/daokit/tui/component/componenttest"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
)

func env() *component.Env { return componenttest.Env("en", time.Time{}) }

// TestTextIsInsertedAndEnterSubmits: runes naming keys are inserted as
// text, enter tells the root what was sent (by message), and the history
// restored from an earlier run comes back with up.
func TestTextIsInsertedAndEnterSubmits(t *testing.T) {
	t.Parallel()
	m := New(env())
	m.SetSize(80, 3)
	m.SetFocused(true)
	m.Update(RestoreMsg{History: []string{"an older message"}})
	for _, chunk := range []string{"alt+enter", " ", "ctrl+j", " ", "enter"} {
		typ := tea.KeyRunes
		if chunk == " " {
			typ = tea.KeySpace
		}
		m.Update(tea.KeyMsg{Type: typ, Runes: []rune(chunk)})
	}
	if got := m.Value(); got != "alt+enter ctrl+j enter" {
		t.Fatalf("value %q", got)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter returned no command")
	}
	if msg, ok := cmd().(SubmittedMsg); !ok || msg.Text != "alt+enter ctrl+j enter" {
		t.Fatalf("enter told %#v", cmd())
	}
	if h := m.History(); len(h) != 2 || h[0] != "an older message" {
		t.Errorf("history %q", h)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if got := m.Value(); got != "an older message" {
		t.Errorf("up twice: %q", got)
	}
}
