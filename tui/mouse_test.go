package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestMouseFocusesAndScrolls: a click focuses the pane under it, the
// wheel focuses and scrolls it.
func TestMouseFocusesAndScrolls(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	feed(m, fixtureUpdate(200))
	l := m.lay
	top := 1 + l.bannerH
	click := func(x, y int, b tea.MouseButton) {
		_, cmd := m.Update(tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: b})
		runQuick(m, cmd)
	}
	cases := []struct {
		x, y int
		want string
	}{
		{1, top, "pipeline"},
		{1, top + l.pipeH, "heartbeat"},
		{1, top + l.pipeH + l.hbH, "leases"},
		{l.leftW + l.gap + 1, top, "conversation"},
		{l.leftW + l.gap + 1, top + l.convH, "events"},
		{5, top + l.bodyH, "input"},
	}
	for _, c := range cases {
		click(c.x, c.y, tea.MouseButtonLeft)
		if got := m.Focus(); got != c.want {
			t.Errorf("click at %d,%d focused %s, want %s", c.x, c.y, got, c.want)
		}
	}
	if !m.Events().Following() {
		t.Fatal("setup: the event pane does not follow")
	}
	click(l.leftW+l.gap+1, top+l.convH+2, tea.MouseButtonWheelUp)
	if m.Focus() != "events" || m.Events().Following() {
		t.Errorf("the wheel did not scroll the event pane back (focus %s)", m.Focus())
	}
}
