package controller

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// Requests from many goroutines run one at a time on the loop's state,
// each before its do returns; once the loop stopped, a request is not
// run and do says so, instead of waiting for a loop that is gone.
func TestStateLoopRunsEveryRequestOnceAndNoneAfterStop(t *testing.T) {
	t.Parallel()
	l := newStateLoop()
	st := &loopState{outcomeIDs: []string{}}
	l.start(st)
	const askers, each = 8, 200
	var wg sync.WaitGroup
	for range askers {
		wg.Go(func() {
			for range each {
				var n int
				if !l.do(func(st *loopState) {
					st.outcomeIDs = append(st.outcomeIDs, "x") // unguarded: the race detector would see two at once
					n = len(st.outcomeIDs)
				}) {
					t.Error("a request before stop was not run")
					return
				}
				if n == 0 {
					t.Error("do returned before its request ran")
					return
				}
			}
		})
	}
	wg.Wait()
	l.stop()
	if got := len(st.outcomeIDs); got != askers*each {
		t.Fatalf("%d requests ran, want %d", got, askers*each)
	}
	if l.do(func(st *loopState) { st.outcomeIDs = nil }) {
		t.Fatal("a request after stop was run")
	}
	if st.outcomeIDs == nil {
		t.Fatal("a request after stop changed the state")
	}
}

// The controller's state loop stops last: a shutdown with a run whose
// worker is busy and runs queued behind it on the lane (whose slots the
// shutdown hands on as the runs end) asks the loop for nothing once it
// stopped.
func TestNothingAsksTheStateLoopAfterItStops(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	cfg := shellConfig("echo busy; exec sleep 60")
	h := startHarnessWith(t, Options{Root: t.TempDir(), Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	first := h.forward("the busy run")
	h.waitFor("the busy worker's start", func(e ledger.Event) bool {
		return e.TaskID == first.TaskID && e.EventType == ledger.EventStepStarted
	})
	for i := range 5 {
		h.forward(fmt.Sprintf("queued %d", i))
	}
	h.stop()
	if out := logs.String(); strings.Contains(out, "after it stopped") {
		t.Fatalf("a request reached the stopped state loop:\n%s", out)
	}
}
