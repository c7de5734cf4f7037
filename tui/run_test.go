package tui

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is an output the test can read while the program writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	out chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.out <- struct{}{}:
	default:
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRunEndsEveryGoroutine runs the whole program through Run, ends it
// by cancelling its context, and checks that Run returns the context's
// error, leaves the terminal modes it set, and leaves no goroutine
// behind.
func TestRunEndsEveryGoroutine(t *testing.T) {
	// os/signal starts one goroutine for the life of the process the
	// first time anyone asks for signals; start it before counting.
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	signal.Stop(c)
	before := runtime.NumGoroutine()
	opts := testOptions("en")
	fd := opts.Feed.(*fakeFeed)
	fd.push(fixtureUpdate(10))
	r := newFakeRelay()
	opts.Relay, opts.Controllers = r, &fakeControllers{}
	out := &syncBuffer{out: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, opts, RunOptions{Input: strings.NewReader(""), Output: out, AltScreen: true})
	}()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	// Output is no terminal, so there is no size and no frame: the
	// program has started once it has set up the terminal.
	for !strings.Contains(out.String(), "\x1b[?2004h") {
		select {
		case <-out.out:
		case <-deadline.C:
			t.Fatalf("the program did not start: %q", out.String())
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v, want context.Canceled", err)
		}
	case <-deadline.C:
		t.Fatal("Run did not return after its context ended")
	}
	for _, mode := range []string{"\x1b[?1049l", "\x1b[?2004l", "\x1b[?25h"} {
		if !strings.Contains(out.String(), mode) {
			t.Errorf("terminal mode %q not restored: %q", mode, out.String())
		}
	}
	fd.Close()
	r.Close()
	for runtime.NumGoroutine() > before {
		select {
		case <-deadline.C:
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left after Run, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		default:
			runtime.Gosched()
		}
	}
}
