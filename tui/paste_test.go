package tui

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/text"
)

// pasteOf returns n bytes of source-like text with Chinese in it.
func pasteOf(n int) string {
	return repeatTo("    if err := run(ctx, \"步骤\"); err != nil { return err }\n", n)
}

// repeatTo repeats line up to n bytes, cut at a line's end.
func repeatTo(line string, n int) string {
	s := strings.Repeat(line, n/len(line)+1)[:n]
	return s[:strings.LastIndexByte(s, '\n')+1]
}

// TestLongPasteIsSentWhole: a 300 KB bracketed paste is held as one
// block (shown by its size), sent whole with the words typed after it.
func TestLongPasteIsSentWhole(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 80, 24)
	typeText(m, "review this: ")
	p := pasteOf(300 << 10)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(p), Paste: true})
	runQuick(m, cmd)
	typeText(m, " thanks")
	view := m.View()
	checkFrame(t, view, 80, 24, "a held paste")
	if !strings.Contains(view, "pasted text: 300.0 KB") {
		t.Fatalf("the held paste is not shown:\n%s", view)
	}
	press(t, m, "enter")
	want := "forward:" + strings.TrimSpace("review this: "+p+" thanks")
	if !slices.Contains(r.Calls(), want) {
		t.Fatalf("the paste was not sent whole (%d calls)", len(r.Calls()))
	}
	if m.input.Value() != "" || m.input.Held() {
		t.Fatalf("the message box kept %d bytes after sending", len(m.input.Value()))
	}
}

// TestTooLargePasteIsRefused: a 1 MB paste is refused with a note and
// leaves the message box as it was; backspace drops a held block.
func TestTooLargePasteIsRefused(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 200, 40)
	typeText(m, "keep me")
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(pasteOf(1 << 20)), Paste: true})
	runQuick(m, cmd)
	if m.input.Value() != "keep me" {
		t.Fatalf("message box holds %d bytes after a refused paste", len(m.input.Value()))
	}
	if v := m.View(); !strings.Contains(v, "larger than a message") {
		t.Fatalf("no note of the refusal:\n%s", m.View())
	}
	m.input.SetValue("")
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(pasteOf(20 << 10)), Paste: true})
	runQuick(m, cmd)
	press(t, m, "backspace")
	if m.input.Held() || m.input.Value() != "" {
		t.Fatalf("backspace left %d bytes", len(m.input.Value()))
	}
}

// TestUnbracketedPasteThroughTheTerminal writes 130 KB with no bracketed
// paste to a real program (Bubble Tea splits it into thousands of
// messages, which once took minutes) and sees it sent whole, as one
// message: with its lines ending in LF (ctrl+j, a new line) and then a
// CR, and with its lines ending in CR as terminals paste them (Enter,
// which once sent each line as a message of its own; the last one sends
// the paste when the keys stop).
func TestUnbracketedPasteThroughTheTerminal(t *testing.T) {
	// ASCII only: Bubble Tea v1 drops a character split between two
	// reads, which no window can get back.
	pasted := repeatTo("    if err := run(ctx, \"step\"); err != nil { return err }\n", 130<<10)
	for name, written := range map[string]string{
		"lf": pasted + "\r",
		"cr": strings.ReplaceAll(pasted, "\n", "\r"),
	} {
		t.Run(name, func(t *testing.T) {
			r := writtenToTerminal(t, written)
			want := "forward:" + strings.TrimSpace(pasted)
			if n := countPrefix(r.Calls(), "forward:"); n != 1 {
				t.Errorf("the paste was sent as %d messages", n)
			}
			if !slices.Contains(r.Calls(), want) {
				t.Errorf("the paste was not sent whole")
			}
		})
	}
}

// writtenToTerminal writes s to a real program's input in one go and
// returns its relay once the program forwarded a message and ended.
func writtenToTerminal(t *testing.T, s string) *fakeRelay {
	t.Helper()
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
	p.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	go func() { _, _ = io.WriteString(pw, s) }()
	deadline := time.Now().Add(30 * time.Second)
	for countPrefix(r.Calls(), "forward:") == 0 {
		select {
		case err := <-done:
			t.Fatalf("the program ended (%v) before forwarding", err)
		default:
		}
		if time.Now().After(deadline) {
			calls := r.Calls()
			for i, c := range calls {
				calls[i] = text.Truncate(c, 60, "…") + " (" + strconv.Itoa(len(c)) + " bytes)"
			}
			t.Fatalf("nothing forwarded in 30 s; calls %q", calls)
		}
		r.wait(50 * time.Millisecond)
	}
	// Anything sent after the first message would be a piece of the
	// paste on its own: quit through the program's own queue, after
	// every key written before it.
	_ = pw.Close()
	p.Quit()
	<-done
	return r
}

// BenchmarkPaste1MB is a 1 MB paste through the root Update and a frame
// after every message: bracketed (one message, refused whole), in 4 KB
// messages of text with its line ends as ctrl+j (held as a block, the
// part over the cap refused), and as a terminal without bracketed paste
// sends it, each line's text then Enter for its CR (held by the burst
// and made new lines, refused at the cap; the burst's ticks are handed
// in at the end, as the keys stop). The window's budget is 1 s.
func BenchmarkPaste1MB(b *testing.B) {
	text := pasteOf(1 << 20)
	runes := []rune(text)
	keys := pasteKeys(text)
	for _, tc := range []struct {
		name string
		msgs func() []tea.KeyMsg
	}{
		{"bracketed", func() []tea.KeyMsg { return []tea.KeyMsg{{Type: tea.KeyRunes, Runes: runes, Paste: true}} }},
		{"unbracketed", func() []tea.KeyMsg {
			var out []tea.KeyMsg
			for i := 0; i < len(runes); i += 4 << 10 {
				out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: runes[i:min(i+4<<10, len(runes))]})
			}
			return out
		}},
		{"keys", func() []tea.KeyMsg { return keys }},
	} {
		msgs := tc.msgs()
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				m := newTestModel(b, testOptions("en"), 80, 24)
				for _, msg := range msgs {
					// The commands are left out: the flush and the burst
					// are timers, which would time their sleeps. Value
					// flushes at the end, the most the text area takes at
					// once.
					m.Update(msg)
					_ = m.View()
				}
				for m.paste.open {
					m.Update(BurstTickMsg{gen: m.paste.gen})
				}
				_ = m.input.Value()
				_ = m.View()
			}
		})
	}
}

// TestPastedLineEndsAreNewLines: terminals paste line ends as CR; in the
// message they are new lines.
func TestPastedLineEndsAreNewLines(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 80, 24)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("one\r\ntwo\rthree"), Paste: true})
	runQuick(m, cmd)
	if got := m.input.Value(); got != "one\ntwo\nthree" {
		t.Errorf("input %q", got)
	}
}
