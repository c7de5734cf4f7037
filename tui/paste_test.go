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
// messages, which once took minutes) and sees it sent whole.
func TestUnbracketedPasteThroughTheTerminal(t *testing.T) {
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
	// Lines end in \n, which arrives as ctrl+j: a new line, not a send.
	// ASCII only: Bubble Tea v1 drops a character split between two
	// reads, which no window can get back.
	pasted := repeatTo("    if err := run(ctx, \"step\"); err != nil { return err }\n", 130<<10)
	go func() { _, _ = io.WriteString(pw, pasted+"\r") }()
	want := "forward:" + strings.TrimSpace(pasted)
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(r.Calls(), want) {
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
			t.Fatalf("not forwarded whole (%d bytes) in 30 s; calls %q", len(want), calls)
		}
		r.wait(50 * time.Millisecond)
	}
	p.Quit()
	_ = pw.Close()
	<-done
}

// BenchmarkPaste1MB is a 1 MB paste through the root Update and a frame,
// bracketed (one message, refused whole) and not (4 KB messages, the
// part that fits held, the rest refused). The window's budget is 1 s;
// go test ./tui -run XXX -bench Paste1MB measured 18 ms and 10 ms.
func BenchmarkPaste1MB(b *testing.B) {
	text := []rune(pasteOf(1 << 20))
	for _, tc := range []struct {
		name  string
		chunk int
	}{{"bracketed", len(text)}, {"unbracketed", 4 << 10}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				m := newTestModel(b, testOptions("en"), 80, 24)
				for i := 0; i < len(text); i += tc.chunk {
					// The commands are left out: the flush is a timer,
					// which would time the sleep. Value flushes at the
					// end, the most the text area takes at once.
					m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: text[i:min(i+tc.chunk, len(text))], Paste: tc.chunk == len(text)})
					_ = m.View()
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
