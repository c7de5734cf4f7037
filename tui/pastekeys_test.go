package tui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// pasteKeys returns the keys Bubble Tea v1 makes of text pasted without
// bracketed paste: each line's runes, then Enter for its CR.
func pasteKeys(text string) []tea.KeyMsg {
	var keys []tea.KeyMsg
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			keys = append(keys, tea.KeyMsg{Type: tea.KeyEnter})
		}
		if line != "" {
			keys = append(keys, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(line)})
		}
	}
	return keys
}

// sendBurst hands keys to m back to back, as the program does with the
// keys of one read: none of their commands runs in between, so no tick of
// the burst can come between them. It returns their commands.
func sendBurst(m *Model, keys []tea.KeyMsg) []tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(keys))
	for _, k := range keys {
		_, cmd := m.Update(k)
		cmds = append(cmds, cmd)
	}
	return cmds
}

// TestPasteAsKeysIsOneMessage: a multi-line paste that arrives as keys
// (no bracketed paste: CR as Enter, tabs as Tab) is one message, its
// line ends new lines, sent whole by the Enter of its last line end once
// the keys stop; the focus stays in the message box.
func TestPasteAsKeysIsOneMessage(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 80, 24)
	keys := pasteKeys("first line\nsecond line\n")
	keys = slices.Insert(keys, 3, tea.KeyMsg{Type: tea.KeyTab}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("tabbed")})
	cmds := sendBurst(m, keys)
	if calls := r.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "forward:") }) {
		t.Fatalf("a line was sent amid the paste: %q", calls)
	}
	// The burst's ticks: the keys stopped. The text area writes a tab
	// as spaces.
	runQuick(m, tea.Batch(cmds...))
	want := "forward:first line\nsecond line    tabbed"
	if calls := r.Calls(); !slices.Contains(calls, want) || countPrefix(calls, "forward:") != 1 {
		t.Fatalf("the paste was not sent as one message %q: calls %q", want, calls)
	}
	if m.Focus() != "input" {
		t.Errorf("the paste's tab moved the focus to %s", m.Focus())
	}
}

// TestHeldEnterActsBeforeTheNextKey: a line typed by a program and its
// Enter, then at once F4: the line is sent before the task list opens,
// and the Enter is not taken by the list (choosing a task), however the
// burst's ticks and the keys interleave.
func TestHeldEnterActsBeforeTheNextKey(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	feed(m, fixtureUpdate(20))
	cmds := sendBurst(m, append(pasteKeys("add a cache\n"), keyMsg("f4")))
	runQuick(m, tea.Batch(cmds...))
	if !slices.Contains(r.Calls(), "forward:add a cache") {
		t.Fatalf("the line was not sent before F4: calls %q", r.Calls())
	}
	if !m.Tasks().Visible() || m.Steering() != "" {
		t.Errorf("after the line, F4 should open the list and choose nothing: visible %v, steering %q",
			m.Tasks().Visible(), m.Steering())
	}
}

// TestTypedKeysAreNotHeld: keys a person types, each after the burst of
// the last has ended, act at once: Tab moves the focus, Enter sends.
func TestTypedKeysAreNotHeld(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	typeText(m, "hello") // runs the burst to its end, as time would
	press(t, m, "enter")
	if !slices.Contains(r.Calls(), "forward:hello") {
		t.Fatalf("enter typed after the text did not send: %q", r.Calls())
	}
	press(t, m, "tab")
	if m.Focus() == "input" {
		t.Errorf("tab typed on its own did not move the focus")
	}
}

// TestStaleBurstTickIsIgnored: a tick of a burst that has ended (a
// timer's late message) neither ends the next burst early nor acts twice.
func TestStaleBurstTickIsIgnored(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 80, 24)
	typeText(m, "one")
	stale := BurstTickMsg{gen: m.paste.gen}
	cmds := sendBurst(m, pasteKeys("two\nthree"))
	m.Update(stale)
	m.Update(stale)
	if !m.paste.open || countPrefix(r.Calls(), "forward:") != 0 {
		t.Fatalf("a stale tick ended the burst (open %v) or sent: %q", m.paste.open, r.Calls())
	}
	runQuick(m, tea.Batch(cmds...))
	press(t, m, "enter")
	if want := "forward:onetwo\nthree"; !slices.Contains(r.Calls(), want) {
		t.Errorf("calls %q, want %q", r.Calls(), want)
	}
}

func countPrefix(calls []string, prefix string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// TestTooLargePasteAsKeysIsRefusedWhole: a paste over the message cap
// that arrives as keys is refused with a note, and no line of it is
// sent, not even by the Enter of its last line end.
func TestTooLargePasteAsKeysIsRefusedWhole(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	runQuick(m, tea.Batch(sendBurst(m, pasteKeys(pasteOf(600<<10)))...))
	if n := countPrefix(r.Calls(), "forward:"); n != 0 {
		t.Errorf("%d messages sent from a paste over the cap", n)
	}
	if v := m.View(); !strings.Contains(v, "larger than a message") {
		t.Errorf("no note of the refusal:\n%s", v)
	}
	if !m.input.Empty() {
		t.Errorf("the message box kept %d bytes of the refused paste", len(m.input.Value()))
	}
}
