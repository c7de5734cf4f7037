package controller

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// appendForeign appends events to events.jsonl as another writer does
// (the Python tool, a `daokit takeover` without this controller): its
// own lines, O_APPEND, not through the controller's store.
func appendForeign(t *testing.T, root string, events ...ledger.Event) {
	t.Helper()
	f, err := os.OpenFile(ledger.Layout{Root: root}.Events(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLivenessLoopReactsToAnotherWritersTakeover: the liveness loop
// reads what is appended to events.jsonl while it runs. Its own
// LEASE_TAKEOVER is not news; another writer's takeover of the step a
// run is running is: the run records TAKEOVER_SEEN, stops its worker,
// fails the step as LEASE_LOST and does not start it again, and its
// leases are not renewed (no LEASE_RENEW_FAILED contesting the
// takeover). Another writer's run is reported once, not acted on.
func TestLivenessLoopReactsToAnotherWritersTakeover(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig(`echo hello; exec sleep 60`)
	cfg.Heartbeat.CheckInterval = config.Duration(20 * time.Millisecond)
	cfg.Heartbeat.WarningAfter = config.Duration(time.Hour) // the loop judges no silence
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Hour)
	c, h := startControllerHarness(t, Options{Root: root, Config: cfg})
	ack := h.forward("work long")
	_, proc := runningWorker(t, c)
	// The other writer reads the ledger's files, as the Python tool does.
	snap := awaitOnDisk(t, root, ack.TaskID)
	p, reg := snap.Pipeline.Value, snap.Leases.Value
	step := p.CurrentStep

	// The controller's own takeover record is not another writer's.
	own := ledger.NewEvent(time.Now(), p.TaskID, p.RunID, "", ledger.EventLeaseTakeover, ledger.SeverityInfo,
		ledger.ObjectOf("takeover_at", ledger.FormatTime(time.Now()), "adopted_step_ids", []string{step}, "failed_step_ids", []string{}, "reason_code", "MANUAL_TAKEOVER"))
	if err := c.journal.append(own); err != nil {
		t.Fatal(err)
	}
	awaitPass(t, c, time.Now())
	awaitPass(t, c, time.Now())
	if proc.Exited() || count(h.events(), func(e ledger.Event) bool { return op(e) == OpTakeoverSeen }) != 0 {
		t.Fatal("the controller reacted to its own takeover record")
	}

	// Another writer takes the step over, as `daokit takeover` does.
	tk, err := heal.PlanTakeover(&p, &reg, heal.TakeoverSpec{TaskID: p.TaskID, RunID: p.RunID, Reason: vocab.ReasonManualTakeover,
		Successor: heal.Holder{ThreadID: "takeover-4242", PID: 4242}}, time.Now())
	if err != nil || len(tk.AdoptedSteps()) == 0 {
		t.Fatalf("plan: %v, adopted %v", err, tk.AdoptedSteps())
	}
	theirs := tk.Events("")
	appendForeign(t, root, theirs...)
	// And runs a run of its own.
	py := func(node string) ledger.Event {
		return ledger.NewEvent(time.Now(), "PY-1", "RUN-B", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("node", node))
	}
	appendForeign(t, root, py("bootstrap"), py("dispatch"))

	seen := h.waitFor("TAKEOVER_SEEN", func(e ledger.Event) bool { return op(e) == OpTakeoverSeen })
	if seen.TaskID != ack.TaskID || seen.StepID != step || seen.Payload.String("takeover_event_id") != theirs[0].EventID ||
		seen.Payload.String("reason_code") != ReasonLeaseLost || seen.Payload.String("successor_thread_id") != "takeover-4242" {
		t.Fatalf("TAKEOVER_SEEN %+v", seen)
	}
	if v, _ := seen.Payload.Get("acted"); string(v) != "true" {
		t.Fatalf("acted %s", v)
	}
	failed := h.waitFor("STEP_FAILED", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventStepFailed && e.StepID == step && e.Payload.String("reason_code") != "LEASE_NOT_ADOPTED"
	})
	if failed.Payload.String("reason_code") != ReasonLeaseLost {
		t.Fatalf("the step failed as %q", failed.Payload.String("reason_code"))
	}
	h.waitFor("RUN_FINISHED", func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opRunFinished })
	foreign := h.waitFor("FOREIGN_RUN_SEEN", func(e ledger.Event) bool { return op(e) == OpForeignRun })
	if foreign.Payload.String("foreign_task_id") != "PY-1" || foreign.Payload.String("foreign_run_id") != "RUN-B" {
		t.Fatalf("FOREIGN_RUN_SEEN %+v", foreign)
	}
	awaitPass(t, c, time.Now())
	events := h.events()
	if n := count(events, func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventStepStarted
	}); n != 1 {
		t.Errorf("the lost step started %d times", n)
	}
	if n := count(events, func(e ledger.Event) bool { return op(e) == opLeaseRenewFailed }); n != 0 {
		t.Errorf("%d LEASE_RENEW_FAILED: the controller contested the takeover", n)
	}
	if n := count(events, func(e ledger.Event) bool { return op(e) == OpForeignRun }); n != 1 {
		t.Errorf("the foreign run reported %d times", n)
	}
	if n := count(events, func(e ledger.Event) bool { return e.TaskID == "PY-1" && op(e) != "" }); n != 0 {
		t.Errorf("the controller wrote %d events under the foreign run", n)
	}
}

// awaitOnDisk waits until the ledger's files show task's run with an
// ACTIVE lease on its current step, and returns them.
func awaitOnDisk(t *testing.T, root, task string) ledger.Snapshot {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) { // polling the files; the condition decides
		snap := ledger.LoadSnapshot(root)
		if !snap.Pipeline.OK() || !snap.Leases.OK() || snap.Pipeline.Value.TaskID != task {
			continue
		}
		for _, l := range snap.Leases.Value.Leases {
			if l.TaskID == task && l.StepID == snap.Pipeline.Value.CurrentStep && l.Status == ledger.LeaseActive {
				return snap
			}
		}
	}
	t.Fatalf("no ACTIVE lease of %s on disk within 20s", task)
	return ledger.Snapshot{}
}

// TestReplaySignalReadsOnlyWhatOthersAppended: the reader returns each
// event once, never the controller's own, nothing when nothing was
// appended, and goes on from the new content of a replaced file.
func TestReplaySignalReadsOnlyWhatOthersAppended(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := ledger.Layout{Root: root}.Events()
	if err := os.MkdirAll(ledger.Layout{Root: root}.StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := newReplaySignal(path, 0)
	var logged []string
	log := func(msg string, _ ...any) { logged = append(logged, msg) }
	ev := func(task string) ledger.Event {
		return ledger.NewEvent(time.Now(), task, "R", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("node", "x"))
	}
	mine, theirs := ev("MINE"), ev("THEIRS")
	s.own.add([]ledger.Event{mine})
	appendForeign(t, root, mine, theirs)
	got := s.read(log)
	if len(got) != 1 || got[0].EventID != theirs.EventID {
		t.Fatalf("read %+v", got)
	}
	if got := s.read(log); len(got) != 0 || len(logged) != 0 {
		t.Fatalf("nothing appended, read %+v, logged %v", got, logged)
	}
	// Replaced by another inode: its lines then are history, what comes
	// after is news.
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	appendForeign(t, root, ev("OLD"))
	s.read(log)
	later := ev("LATER")
	appendForeign(t, root, later)
	if got := s.read(log); len(got) != 1 || got[0].EventID != later.EventID || len(logged) != 1 {
		t.Fatalf("after the replacement read %+v, logged %v", got, logged)
	}
}

// TestReplaySignalKnowsItsOwnEventsWhileTheyAreWritten: the journal
// writes on its goroutine while the reader reads on another, as in a
// running controller; however the two interleave, no event the journal
// wrote is taken for another writer's, and another writer's event
// appended among them still is.
func TestReplaySignalKnowsItsOwnEventsWhileTheyAreWritten(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, j, ears := journalOn(t, root)
	s := newReplaySignal(c.store.Layout().Events(), c.store.EventsSize())
	j.own = &s.own // before the first request, as open does
	t.Cleanup(j.close)
	const writes = 400
	theirs := ledger.NewEvent(time.Now(), "THEIRS", "R", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("node", "x"))
	half, written := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := range writes {
			if err := j.append(outputEvent(c.events, fmt.Sprint("mine-", i))); err != nil {
				written <- err
				return
			}
			if i == writes/2 {
				close(half)
			}
		}
		written <- nil
	}()
	var foreign []ledger.Event
	log := func(msg string, args ...any) { t.Errorf("replay signal: %s %v", msg, args) }
	done := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		foreign = append(foreign, s.read(log)...)
		if done {
			break // read once more after the last write
		}
		select {
		case <-half:
			appendForeign(t, root, theirs) // among the journal's writes
			half = nil
		case err := <-written:
			if err != nil {
				t.Fatal(err)
			}
			if half != nil {
				appendForeign(t, root, theirs) // the journal was quicker
			}
			done = true
		case <-time.After(time.Millisecond):
		}
	}
	if !done {
		t.Fatal("the journal did not write its events in time")
	}
	if len(foreign) != 1 || foreign[0].EventID != theirs.EventID {
		t.Errorf("read as another writer's: %d events %+v, want only the foreign one", len(foreign), foreign)
	}
	if errs := ears.errors(); len(errs) > 0 {
		t.Errorf("journal errors: %v", errs)
	}
}
