package tui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// longDiff is a change of two files, the first long enough to scroll.
func longDiff() []byte {
	var b strings.Builder
	b.WriteString("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,60 @@\n")
	for i := range 60 {
		b.WriteString("+line " + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString(changesDiff)
	return []byte(b.String())
}

// TestChangesViewTakesTheKeysItsHelpLists: in the F3 view the keys its
// help lists (j, ], G, ?) act on it and nothing reaches the message box;
// other text starts a message there; Tab moves the keys back.
func TestChangesViewTakesTheKeysItsHelpLists(t *testing.T) {
	t.Parallel()
	m := openChanges(t, "en", 100, 24, longDiff())
	first := m.View()
	press(t, m, "j")
	if m.input.Value() != "" || m.View() == first {
		t.Fatalf("j in the changes view: input %q, view unchanged %v", m.input.Value(), m.View() == first)
	}
	press(t, m, "]")
	if m.input.Value() != "" || !strings.Contains(m.View(), "› internal/cache/lru.go") {
		t.Fatalf("] did not pick the next file (input %q):\n%s", m.input.Value(), m.View())
	}
	press(t, m, "?")
	if !m.showHelp || !strings.Contains(m.View(), "Here: Changes") {
		t.Fatalf("? in the changes view did not open its help:\n%s", m.View())
	}
	press(t, m, "esc")
	if m.showHelp || !m.changes.Visible() {
		t.Fatalf("esc closed help %v, view visible %v", !m.showHelp, m.changes.Visible())
	}
	// Text the view does not use starts a message, and from then on
	// every letter is text (j included) until Tab gives the keys back.
	typeText(m, "/reject just no")
	if got := m.input.Value(); got != "/reject just no" {
		t.Fatalf("typed in the changes view: input %q", got)
	}
	press(t, m, "tab")
	if !m.viewHasKeys() {
		t.Fatal("tab did not give the keys back to the view")
	}
}

// TestStrayKeyNeverTurnsACommandIntoATask: "]/accept" (a stray key
// before a command) is not sent as an instruction; it goes back to the
// message box with a note, and /accept then goes as the control.
func TestStrayKeyNeverTurnsACommandIntoATask(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	typeText(m, "]/accept")
	press(t, m, "enter")
	if calls := r.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "forward:") }) {
		t.Fatalf("a stray ] sent an instruction: %q", calls)
	}
	if m.input.Value() != "]/accept" || !strings.Contains(m.View(), "was not sent") {
		t.Fatalf("input %q; view:\n%s", m.input.Value(), m.View())
	}
	m.input.SetValue("")
	typeText(m, "/accept")
	press(t, m, "enter")
	if !slices.Contains(r.Calls(), "control:accept") {
		t.Fatalf("relay calls %q, want the accept", r.Calls())
	}
	for _, s := range []string{"a/b testing", "and/accept the rest", "see http://x/accept"} {
		if strayCommand(s) != "" {
			t.Errorf("%q taken for a stray command", s)
		}
	}
}

// TestClickNeverSwallowsTyping: after a click on the conversation (or a
// wheel over the events), the instruction typed next goes to the message
// box whole, j included, and is sent.
func TestClickNeverSwallowsTyping(t *testing.T) {
	t.Parallel()
	for _, click := range []tea.MouseMsg{
		{Action: tea.MouseActionPress, Button: tea.MouseButtonLeft},
		{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown},
	} {
		r := newFakeRelay()
		opts := testOptions("en")
		opts.Relay = r
		m := newTestModel(t, opts, 120, 40)
		l := m.lay
		click.X, click.Y = l.leftW+l.gap+2, 1+l.bannerH+2
		m.Update(click)
		if m.Focus() != "conversation" {
			t.Fatalf("the click focused %s", m.Focus())
		}
		typeText(m, "just fix the bug")
		press(t, m, "enter")
		if !slices.Contains(r.Calls(), "forward:just fix the bug") {
			t.Fatalf("%v then typing: relay calls %q, input %q", click.Button, r.Calls(), m.input.Value())
		}
	}
}

// TestPaneReachedWithTabTakesItsKeys: a pane reached with Tab takes the
// keys its help lists (t filters the events); other text and esc go back
// to the message box.
func TestPaneReachedWithTabTakesItsKeys(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 120, 40)
	focusOn(t, m, "events")
	if !strings.Contains(m.View(), "keys with Events · esc to type") {
		t.Fatalf("the message box does not say the events have the keys:\n%s", m.View())
	}
	press(t, m, "f")
	if m.input.Value() != "" || m.Focus() != "events" {
		t.Fatalf("f in the events: input %q, focus %s", m.input.Value(), m.Focus())
	}
	press(t, m, "h")
	if m.input.Value() != "h" || m.Focus() != "input" || strings.Contains(m.View(), "keys with") {
		t.Fatalf("h (not an events key): input %q, focus %s", m.input.Value(), m.Focus())
	}
	focusOn(t, m, "conversation")
	press(t, m, "esc")
	if m.Focus() != "input" {
		t.Fatalf("esc in the conversation left focus on %s", m.Focus())
	}
}

// TestEveryListedKeyReachesItsView: for every view, each key its help
// lists is given to the view (not typed into the message box).
func TestEveryListedKeyReachesItsView(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pipeline", "heartbeat", "leases", "conversation", "events"} {
		m := newTestModel(t, testOptions("en"), 120, 40)
		focusOn(t, m, name)
		for _, g := range m.focused().FullHelp() {
			for _, b := range g {
				for _, k := range b.Keys() {
					msg := keyMsg(k)
					if msg.Type != tea.KeyRunes || len(msg.Runes) != 1 {
						continue
					}
					press(t, m, k)
					if m.input.Value() != "" {
						t.Errorf("%s: %q (listed in its help) went to the message box", name, k)
						m.input.SetValue("")
					}
					press(t, m, "esc") // leave a detail view or search
					m.input.SetValue("")
					focusOn(t, m, name)
				}
			}
		}
	}
}
