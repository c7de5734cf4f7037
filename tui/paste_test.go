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

// unbracketed returns the key messages Bubble Tea v1 makes of s read in
// one piece from a terminal without bracketed paste: runs of letters as
// one KeyRunes, a space as KeySpace, CR as KeyEnter, a tab as KeyTab.
func unbracketed(s string) []tea.KeyMsg {
	var out []tea.KeyMsg
	var run []rune
	end := func() {
		if len(run) > 0 {
			out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: run})
			run = nil
		}
	}
	for _, r := range s {
		switch r {
		case '\r':
			end()
			out = append(out, tea.KeyMsg{Type: tea.KeyEnter})
		case '\t':
			end()
			out = append(out, tea.KeyMsg{Type: tea.KeyTab})
		case ' ':
			end()
			out = append(out, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		default:
			run = append(run, r)
		}
	}
	end()
	return out
}

// asBracketed returns what the message box holds after a bracketed paste
// of s (line ends made new lines, tabs as the text area keeps them): what
// the same text pasted without bracketed paste must give.
func asBracketed(t *testing.T, s string) string {
	m := newTestModel(t, testOptions("en"), 120, 40)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true})
	runQuick(m, cmd)
	return m.input.Value()
}

// burst delivers keys back to back, as the program does with what one
// read held, and only then runs their commands (the flush ticks, which
// fire later).
func burst(m *Model, keys []tea.KeyMsg) {
	cmds := make([]tea.Cmd, 0, len(keys))
	for _, k := range keys {
		_, cmd := m.Update(k)
		cmds = append(cmds, cmd)
	}
	runQuick(m, tea.Batch(cmds...))
}

// TestUnbracketedPasteKeepsItsLinesAndTabs: lines pasted without
// bracketed paste arrive with CR as Enter and tabs as Tab; they stay in
// the message (not one message a line, not a focus move), and the
// person's Enter afterwards sends it whole.
func TestUnbracketedPasteKeepsItsLinesAndTabs(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	burst(m, unbracketed("first line\rsecond\tcolumn\r\rthird 步骤"))
	if calls := r.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "forward:") }) {
		t.Fatalf("a line of the paste was sent on its own: %q", calls)
	}
	if m.focus != focusInput {
		t.Fatalf("the pasted tab moved the focus to %v", m.focus)
	}
	want := asBracketed(t, "first line\rsecond\tcolumn\r\rthird 步骤")
	if !strings.Contains(want, "\n\nthird") {
		t.Fatalf("a bracketed paste reads %q", want)
	}
	if got := m.input.Value(); got != want {
		t.Fatalf("message box %q, want %q", got, want)
	}
	press(t, m, "enter")
	if !slices.Contains(r.Calls(), "forward:"+want) {
		t.Fatalf("not sent whole: %q", r.Calls())
	}
}

// TestBurstEndingInEnterSends: a paste whose last line ends with CR, or a
// sentence a program types with its Enter, is sent whole once the keys
// stop: the last Enter is the key it is. So is a Tab that ends one.
func TestBurstEndingInEnterSends(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	burst(m, unbracketed("one\rtwo\r"))
	var forwards []string
	for _, c := range r.Calls() {
		if strings.HasPrefix(c, "forward:") {
			forwards = append(forwards, c)
		}
	}
	if !slices.Equal(forwards, []string{"forward:one\ntwo"}) {
		t.Fatalf("forwarded %q, want the two lines as one message", forwards)
	}
	burst(m, unbracketed("draft\t"))
	if m.focus == focusInput {
		t.Error("a Tab after typed text did not move the focus")
	}
	if got := m.input.Value(); got != "draft" {
		t.Errorf("message box %q", got)
	}
}

// TestUnbracketedCRPasteThroughTheTerminal writes lines with CR line ends
// and a tab (tmux's paste-buffer, a terminal without bracketed paste) to
// a real program: Bubble Tea's own parser makes the keys, and the text
// is forwarded as one message.
func TestUnbracketedCRPasteThroughTheTerminal(t *testing.T) {
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(New(ctx, opts), tea.WithInput(pr), tea.WithOutput(io.Discard), tea.WithContext(ctx), tea.WithoutSignals())
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	pasted := "fix these:\r\tlogin layout\r\tlogout button\r"
	go func() { _, _ = io.WriteString(pw, pasted) }()
	want := "forward:" + strings.TrimSpace(asBracketed(t, pasted))
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(r.Calls(), want) {
		select {
		case err := <-done:
			t.Fatalf("the program ended (%v) before forwarding", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not forwarded whole in 10 s; calls %q", r.Calls())
		}
		r.wait(50 * time.Millisecond)
	}
	for _, c := range r.Calls() {
		if strings.HasPrefix(c, "forward:") && c != want {
			t.Errorf("a part was sent on its own: %q", c)
		}
	}
	p.Quit()
	_ = pw.Close()
	<-done
}
