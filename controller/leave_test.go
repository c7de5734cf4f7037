package controller

import (
	"context"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// leaveFixture starts a controller whose one lane slot is held by a
// running task, with a second task waiting for it, and a window that
// observes the controller and then leaves (its connection closes, as
// the window's quit closes it). It returns the harness and both tasks.
func leaveFixture(t *testing.T, abandon bool) (h *harness, running, waiting string) {
	t.Helper()
	cfg := shellConfig(tickScript)
	cfg.Runs.AbandonWaitingOnLeave = abandon
	h = startHarness(t, t.TempDir(), cfg)
	first := h.forward("first")
	h.typedFor(first.TaskID, ledger.EventStepStarted)
	second := h.forward("second")
	h.waitFor("a wait for the lane", func(e ledger.Event) bool {
		return e.TaskID == second.TaskID && op(e) == opRunState && e.Payload.String("to") == stateWaiting
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	win, err := relay.Dial(ctx, h.root, relay.DefaultClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := win.Observe(ctx); err != nil {
		t.Fatal(err)
	}
	win.Close()
	return h, first.TaskID, second.TaskID
}

// With runs.abandon_waiting_on_leave, the window's leaving drops the
// run that waits for its lane (FAILED, RUN_ABANDONED, recorded as an
// abandon the leave triggered) and leaves the running one alone.
func TestAbandonWaitingOnLeave(t *testing.T) {
	t.Parallel()
	h, running, waiting := leaveFixture(t, true)
	fin := h.finished(waiting)
	if s, r := fin.Payload.String("status"), fin.Payload.String("reason_code"); s != ledger.StatusFailed || r != ReasonAbandoned {
		t.Fatalf("waiting run ended %s %s, want FAILED %s", s, r, ReasonAbandoned)
	}
	ctl := h.waitFor("the abandon the leave triggered", func(e ledger.Event) bool {
		return e.TaskID == waiting && op(e) == opControl && e.Payload.String("kind") == string(relay.ControlAbandon)
	})
	if ctl.Payload.String("trigger") != "leave" {
		t.Errorf("abandon recorded with trigger %q, want leave", ctl.Payload.String("trigger"))
	}
	for _, e := range h.events() {
		if e.TaskID == waiting && e.EventType == ledger.EventStepStarted {
			t.Fatal("the abandoned run started a step")
		}
		if e.TaskID == running && op(e) == opRunFinished {
			t.Fatalf("the running task ended when the window left: %s", e.Payload.String("reason_code"))
		}
	}
}

// Without the switch (the default), a waiting run outlives its window:
// when the slot frees it starts.
func TestWaitingOutlivesLeaveByDefault(t *testing.T) {
	t.Parallel()
	h, running, waiting := leaveFixture(t, false)
	if _, err := h.control(relay.Control{Kind: relay.ControlCancel, TaskID: running}); err != nil {
		t.Fatal(err)
	}
	h.typedFor(waiting, ledger.EventStepStarted)
	for _, e := range h.events() {
		if e.TaskID == waiting && e.Payload.String("reason_code") == ReasonAbandoned {
			t.Fatal("the waiting run was abandoned with the switch off")
		}
	}
}
