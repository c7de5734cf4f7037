package tui

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestEventSearchAndCopy: "/" searches the events by text (typed text is
// text, even "tab" or "?"), "y" copies the selected event's payload
// through the terminal (OSC 52) and the conversation says so; "t" cycles
// categories read from the payload.
func TestEventSearchAndCopy(t *testing.T) {
	t.Parallel()
	term := &bellTerm{}
	opts := testOptions("en")
	opts.Terminal = term
	m := newTestModel(t, opts, 160, 48)
	feed(m, fixtureUpdate(40))
	focusOn(t, m, "events")
	press(t, m, "/")
	for _, k := range chunks("takeover ?") {
		press(t, m, string(k.Runes))
	}
	if m.Focus() != "events" || m.showHelp {
		t.Fatalf("typing a search acted on keys: focus %s help %v", m.Focus(), m.showHelp)
	}
	for range 2 {
		_, cmd := m.Update(keyMsg("backspace"))
		runQuick(m, cmd)
	}
	press(t, m, "enter")
	v := m.View()
	if !strings.Contains(v, "7 of 40 /takeover") || strings.Count(v, "takeover") < 8 || strings.Contains(v, "step started") {
		t.Fatalf("search did not narrow the pane to the takeovers:\n%s", v)
	}
	press(t, m, "y")
	out := term.out.String()
	i := strings.Index(out, "\x1b]52;c;")
	if i < 0 {
		t.Fatalf("no OSC 52 written: %q", out)
	}
	enc, _, _ := strings.Cut(out[i+len("\x1b]52;c;"):], "\a")
	payload, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || !strings.Contains(string(payload), "reason_code") {
		t.Errorf("clipboard got %q (%v)", payload, err)
	}
	if !strings.Contains(m.View(), "Copied the payload") {
		t.Error("the copy was not told")
	}
	press(t, m, "x", "t")
	if v := m.View(); !strings.Contains(v, "Events") || strings.Contains(v, "/takeover") {
		t.Errorf("x did not clear the search:\n%s", v)
	}
}
