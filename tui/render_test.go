package tui

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestFrameWriterPaintsChangedLinesOnDemand: the first frame is painted
// whole and at once, a later one only where it changed, and frames that
// arrive within one gap are painted once, the newest.
func TestFrameWriterPaintsChangedLinesOnDemand(t *testing.T) {
	t.Parallel()
	out := &syncBuffer{out: make(chan struct{}, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	w := newFrameWriter(ctx, out, time.Second) // later frames must wait
	w.Submit("a\nb\nc")
	waitPainted(t, w, 1)
	if s := out.String(); !strings.Contains(s, clearScreen) || !strings.Contains(s, "a") || !strings.Contains(s, "c") {
		t.Fatalf("first frame %q", s)
	}
	w.Submit("a\nB\nc")
	w.Submit("a\nX\nc") // replaces the one before, not yet painted
	waitPainted(t, w, 2)
	s := out.String()
	if strings.Contains(s, "B") || !strings.Contains(s, moveTo(2)+"X"+clearLine) || strings.Count(s, "a") != 1 {
		t.Fatalf("second frame %q: want only line 2, the newest", s)
	}
	cancel()
	w.wait()
	if n := w.Painted(); n != 2 {
		t.Errorf("%d frames painted, want 2", n)
	}
}

func waitPainted(t *testing.T, w *frameWriter, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for w.Painted() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d frames painted, want %d", w.Painted(), n)
		}
		time.Sleep(time.Millisecond) // polling a counter; the condition decides
	}
}
