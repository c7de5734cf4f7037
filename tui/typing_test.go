package tui

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// chunks splits s the way Bubble Tea v1's input parser does when s
// arrives in one read: runs of runes as one KeyRunes message, each space
// as a KeySpace.
func chunks(s string) []tea.KeyMsg {
	var out []tea.KeyMsg
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			out = append(out, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		}
		if w != "" {
			out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(w)})
		}
	}
	return out
}

// sendQuits delivers msgs and runs their commands; it reports whether
// any of them asked the program to quit.
func sendQuits(m *Model, msgs ...tea.Msg) bool {
	quit := false
	for _, msg := range msgs {
		_, cmd := m.Update(msg)
		queue := []tea.Cmd{cmd}
		for len(queue) > 0 {
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
			switch r := msg.(type) {
			case tea.QuitMsg:
				quit = true
			case tea.BatchMsg:
				queue = append(queue, r...)
			case nil:
			default:
				_, next := m.Update(r)
				queue = append(queue, next)
			}
		}
	}
	return quit
}

// TestTypedTextIsNeverAKey: words that name bindings, arriving as the
// parser splits a sentence, are inserted as text; only real keys act.
func TestTypedTextIsNeverAKey(t *testing.T) {
	t.Parallel()
	sentences := []string{
		"please document ctrl+c handling",
		"press alt+enter or ctrl+j then enter",
		"up down tab shift+tab esc f1 f2 ? L q ctrl+r",
		"修复 ctrl+c 的处理 enter",
		"two  spaces and a trailing one ",
	}
	for _, s := range sentences {
		r := newFakeRelay()
		opts := testOptions("en")
		opts.Relay = r
		m := newTestModel(t, opts, 120, 40)
		var msgs []tea.Msg
		for _, k := range chunks(s) {
			msgs = append(msgs, k)
		}
		if sendQuits(m, msgs...) {
			t.Fatalf("typing %q quit the window", s)
		}
		if got := m.input.Value(); got != s {
			t.Fatalf("typing %q left %q in the input", s, got)
		}
		if m.Focus() != "input" || m.showHelp || m.Lang() != "en" {
			t.Fatalf("typing %q moved focus to %s, help %v, language %s", s, m.Focus(), m.showHelp, m.Lang())
		}
		// One chunk, as a paste without bracketed paste may arrive.
		m2 := newTestModel(t, opts, 120, 40)
		if sendQuits(m2, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}) || m2.input.Value() != s {
			t.Fatalf("one chunk %q: input %q", s, m2.input.Value())
		}
		if sendQuits(m, keyMsg("enter")) {
			t.Fatal("enter quit the window")
		}
		if want := "forward:" + strings.TrimSpace(s); !slices.Contains(r.Calls(), want) {
			t.Errorf("relay calls %q, want %q", r.Calls(), want)
		}
	}
}

// TestRealKeysStillActWhileTyping: ctrl+c still quits and alt+enter still
// makes a new line.
func TestRealKeysStillActWhileTyping(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 120, 40)
	sendQuits(m, chunks("first")[0], keyMsg("alt+enter"), chunks("second")[0])
	if got := m.input.Value(); got != "first\nsecond" {
		t.Errorf("input %q, want two lines", got)
	}
	if !sendQuits(m, keyMsg("ctrl+c")) {
		t.Error("ctrl+c did not quit")
	}
}

// TestTypedSentenceThroughTheTerminal writes a sentence naming ctrl+c to
// a real program's input (Bubble Tea's own parser splits it) and sees it
// forwarded, with the program still running.
func TestTypedSentenceThroughTheTerminal(t *testing.T) {
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, opts)
	p := tea.NewProgram(m, tea.WithInput(pr), tea.WithOutput(io.Discard), tea.WithContext(ctx), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	go func() { _, _ = io.WriteString(pw, "please document ctrl+c handling\r") }()
	want := "forward:please document ctrl+c handling"
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(r.Calls(), want) {
		select {
		case err := <-done:
			t.Fatalf("the program ended (%v) before forwarding; relay calls %q", err, r.Calls())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not forwarded; relay calls %q", r.Calls())
		}
		r.wait(50 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the program ended after the sentence: %v", err)
	default:
	}
	p.Quit()
	_ = pw.Close()
	<-done
}
