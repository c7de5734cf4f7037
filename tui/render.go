package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Bubble Tea v1's renderer paints on a ticker: a change waits for the
// next tick (up to a whole frame), and the ticker wakes the process
// DefaultFPS times a second even when nothing changes. The window draws
// on demand instead: the program runs without Bubble Tea's renderer, and
// frames go to a writer of its own that paints at once when a change
// arrives and no frame is due, waits out the rest of the frame gap when
// one is, and sleeps (no ticker) while nothing is pending.

// Terminal control sequences the writer sends. With its renderer off,
// Bubble Tea no longer sends them, so the writer does.
const (
	altScreenOn   = "\x1b[?1049h"
	altScreenOff  = "\x1b[?1049l"
	cursorHide    = "\x1b[?25l"
	cursorShow    = "\x1b[?25h"
	pasteOn       = "\x1b[?2004h"
	pasteOff      = "\x1b[?2004l"
	mouseOn       = "\x1b[?1000h\x1b[?1006h"
	mouseOff      = "\x1b[?1000l\x1b[?1006l"
	clearScreen   = "\x1b[2J"
	clearLine     = "\x1b[K"
	clearBelow    = "\x1b[J"
	syncStart     = "\x1b[?2026h" // synchronized output: no tearing where supported
	syncEnd       = "\x1b[?2026l"
	moveTopLeft   = "\x1b[H"
	titlePrefix   = "\x1b]2;"
	titleTerminal = "\a"
)

// frameWriter paints frames on demand. Submit hands it the newest frame
// (never blocking the program: a frame not yet painted is replaced);
// its goroutine paints only the lines that changed.
type frameWriter struct {
	out io.Writer
	gap time.Duration // shortest time between two paints

	mu      sync.Mutex
	pending string
	has     bool
	wake    chan struct{} // buffered 1: a frame is pending
	done    chan struct{}
	last    []string // the lines on screen
	painted int      // frames painted, for tests and benchmarks
}

// newFrameWriter starts a writer painting to out at most once per gap;
// it ends with ctx.
func newFrameWriter(ctx context.Context, out io.Writer, gap time.Duration) *frameWriter {
	w := &frameWriter{out: out, gap: gap,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.loop(ctx)
	return w
}

// Submit hands over the newest frame.
func (w *frameWriter) Submit(frame string) {
	w.mu.Lock()
	w.pending, w.has = frame, true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Write sends raw bytes (a bell, a title, mode changes) to the terminal
// between frames.
func (w *frameWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

// loop paints pending frames, at most one per gap, and sleeps while none
// is pending.
func (w *frameWriter) loop(ctx context.Context) {
	defer close(w.done)
	var last time.Time
	timer := time.NewTimer(0)
	<-timer.C
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			w.paint() // the last frame
			return
		case <-w.wake:
		}
		if wait := w.gap - time.Since(last); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				w.paint()
				return
			case <-timer.C:
			}
		}
		w.paint()
		last = time.Now()
	}
}

// paint writes the pending frame: each line that differs from the screen
// is drawn in place, lines the frame no longer has are cleared.
func (w *frameWriter) paint() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.has {
		return
	}
	frame := w.pending
	w.has, w.pending = false, ""
	lines := strings.Split(frame, "\n")
	var b strings.Builder
	b.WriteString(syncStart)
	if len(w.last) == 0 || len(lines) != len(w.last) {
		// A new size (or the first frame): paint everything.
		b.WriteString(moveTopLeft + clearScreen)
		w.last = nil
	}
	for i, l := range lines {
		if i < len(w.last) && w.last[i] == l {
			continue
		}
		b.WriteString(moveTo(i+1) + l + clearLine)
	}
	if len(lines) < len(w.last) {
		b.WriteString(moveTo(len(lines)+1) + clearBelow)
	}
	b.WriteString(syncEnd)
	w.last = lines
	w.painted++
	_, _ = io.WriteString(w.out, b.String())
}

// moveTo moves the cursor to the start of row (counted from 1).
func moveTo(row int) string { return fmt.Sprintf("\x1b[%d;1H", row) }

// Painted returns how many frames were painted.
func (w *frameWriter) Painted() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.painted
}

// wait waits for the writer's goroutine to end (after its ctx ended).
func (w *frameWriter) wait() { <-w.done }

// onDemand is the program's model when the window draws on demand: the
// root Model, whose every frame (Bubble Tea calls View after each
// message) is handed to the writer. The root's View stays pure; this
// adapter is the renderer.
type onDemand struct {
	*Model
	w    *frameWriter
	last string
}

// View implements tea.Model: the frame goes to the writer when it
// changed; Bubble Tea's own renderer is off and gets nothing.
func (o *onDemand) View() string {
	if f := o.Model.View(); f != o.last {
		o.last = f
		o.w.Submit(f)
	}
	return ""
}

// Update implements tea.Model, keeping the adapter as the model.
func (o *onDemand) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := o.Model.Update(msg)
	return o, cmd
}
