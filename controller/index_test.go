package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/daokit/daokit/relay/relaytest"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// instructionEvent is what HandleInstruction records for message id.
func instructionEvent(f eventFactory, id string) ledger.Event {
	route := ledger.Route{TaskID: taskIDFor(id), RunID: "run-1", ActiveLane: "worker", ActiveStep: "S1", NextAction: nextDispatch}
	return f.system(route.TaskID, route.RunID, "S1", ledger.SeverityInfo, opInstruction,
		"message_id", id, "text", "do "+id, "received_at", ledger.FormatTime(time.Now()), "route", routePayload(route), "generation", 1)
}

func finishedEvent(f eventFactory, id string) ledger.Event {
	return f.system(taskIDFor(id), "run-1", "S1", ledger.SeverityInfo, opRunFinished, "status", ledger.StatusDone, "message_id", id)
}

// TestIndexKnowsEveryInstructionWithoutTheHistory writes 20,000 finished
// instructions (100,000 events) and a few open ones through the journal,
// then loads the index as a new controller would: nothing is replayed, the
// open ones are known, and the very first id still finds its original
// acknowledgement. Events appended after the checkpoint (a crash before
// the next one) are replayed, and only they.
func TestIndexKnowsEveryInstructionWithoutTheHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 100,000 events")
	}
	root := t.TempDir()
	c, err := open(Options{Root: root, Config: shellConfig("true")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	f := c.events
	var first ledger.Event
	var batch []ledger.Event
	for i := range 20000 {
		id := fmt.Sprint("done-", i)
		batch = append(batch, instructionEvent(f, id))
		if i == 0 {
			first = batch[0]
		}
		for range 3 {
			batch = append(batch, f.system(taskIDFor(id), "run-1", "S1", ledger.SeverityInfo, opWorkerOutput, "lines", []any{"working"}))
		}
		batch = append(batch, finishedEvent(f, id))
		if len(batch) >= 1000 {
			if err := c.journal.append(batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for i := range 3 {
		if err := c.journal.append(instructionEvent(f, fmt.Sprint("open-", i))); err != nil {
			t.Fatal(err)
		}
	}
	c.journal.close()
	stateDir := c.store.Layout().StateDir()

	x, load, err := loadIndex(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if load.Replayed != 0 || load.Rebuilt {
		t.Errorf("load %+v, want nothing replayed after a clean close", load)
	}
	assertOpen(t, x, "open-0", "open-1", "open-2")
	en, ok, err := x.lookup("done-0")
	if err != nil || !ok || en.EventID != first.EventID || en.Route.TaskID != first.TaskID {
		t.Fatalf("lookup of the first id: %+v %v %v, want event %s", en, ok, err, first.EventID)
	}
	if _, ok, _ := x.lookup("never-sent"); ok {
		t.Error("an id never sent was found")
	}

	// A crash after appends but before the next checkpoint: open-2's step
	// completed (its run had not ended).
	completed := ledger.NewEvent(time.Now(), taskIDFor("open-2"), "run-1", "S1", ledger.EventStepCompleted, ledger.SeverityInfo,
		ledger.ObjectOf("exit_code", 0))
	if err := c.store.AppendEvents([]ledger.Event{finishedEvent(f, "open-1"), instructionEvent(f, "open-3"), completed}); err != nil {
		t.Fatal(err)
	}
	c.store.Close()
	x, load, err = loadIndex(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	if load.Replayed != 3 {
		t.Errorf("replayed %d events, want the 3 after the checkpoint", load.Replayed)
	}
	assertOpen(t, x, "open-0", "open-2", "open-3")
	for _, en := range x.openEntries() {
		if want := en.MessageID == "open-2"; want != slices.Contains(en.Completed, "S1") {
			t.Errorf("%s: completed steps %v", en.MessageID, en.Completed)
		}
	}

	// A torn checkpoint is rebuilt from the log, which is the truth.
	if err := os.WriteFile(filepath.Join(stateDir, indexDir, indexCheckpointFile), []byte(`{"version":1,"open":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	x, load, err = loadIndex(stateDir)
	if err != nil || !load.Rebuilt {
		t.Fatalf("load %+v %v, want a rebuild", load, err)
	}
	assertOpen(t, x, "open-0", "open-2", "open-3")
}

func assertOpen(t *testing.T, x *instrIndex, want ...string) {
	t.Helper()
	var got []string
	for _, en := range x.openEntries() {
		got = append(got, en.MessageID)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("open instructions %v, want %v", got, want)
	}
}

// TestRestartsKeepWaitingWorkAndWriteNothingForIt restarts a controller
// with thirty instructions waiting behind a slow one, ten times: every
// instruction stays known, a restart adds a few events whatever the
// number waiting, and an id acknowledged before all that still gets its
// original acknowledgement and runs once.
func TestRestartsKeepWaitingWorkAndWriteNothingForIt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("ten controller restarts")
	}
	root := t.TempDir()
	cfg := shellConfig(`read line; case "$line" in quick*) echo done ;; *) sleep 60 ;; esac`)
	h := startHarness(t, root, cfg)
	old := relaytest.SendInstruction(t, h.client, "msg-old", "quick one", 5*time.Second)
	h.finished(old.TaskID)
	const waiting = 30
	for i := range waiting {
		relaytest.SendInstruction(t, h.client, fmt.Sprint("msg-slow-", i), fmt.Sprint("slow ", i), 5*time.Second)
	}
	h.waitFor("a slow worker", func(e ledger.Event) bool {
		return e.EventType == ledger.EventStepStarted && e.TaskID != old.TaskID
	})
	h.stop()
	before := len(h.events())
	const restarts = 10
	for range restarts {
		h = startHarness(t, root, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := h.client.Observe(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Runs) != waiting {
			t.Fatalf("after a restart the controller has %d runs, want %d", len(st.Runs), waiting)
		}
		h.stop()
	}
	grown := len(h.events()) - before
	// The one run with a worker is resumed each time (a dozen events, more
	// on a loaded machine); the thirty that wait add nothing, where they
	// used to add three events each.
	if perRestart := grown / restarts; perRestart >= waiting {
		t.Errorf("each restart added %d events with %d instructions waiting, want fewer than one per waiting instruction", perRestart, waiting)
	}
	h = startHarness(t, root, cfg)
	again := relaytest.SendInstruction(t, h.client, "msg-old", "quick one", 5*time.Second)
	if !again.Duplicate || again.EventID != old.EventID || again.TaskID != old.TaskID {
		t.Fatalf("resent old id: %+v, want the original %+v", again, old)
	}
	if n := count(h.events(), func(e ledger.Event) bool {
		return e.TaskID == old.TaskID && e.EventType == ledger.EventStepStarted
	}); n != 1 {
		t.Errorf("the old instruction started %d times", n)
	}
}

// TestIndexKeepsWhatFinishedStepsSaid: the records STEP_COMPLETED and
// STEP_RECORDED carry are kept for the open instruction, by step, through
// a checkpoint and a replay; a judge that said to go on after iteration
// n drops the records of the iterations before n.
func TestIndexKeepsWhatFinishedStepsSaid(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, err := open(Options{Root: root, Config: shellConfig("true")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	f, task := c.events, taskIDFor("loop")
	completed := func(step, record string) ledger.Event {
		return ledger.NewEvent(time.Now(), task, "run-1", step, ledger.EventStepCompleted, ledger.SeverityInfo,
			ledger.ObjectOf("exit_code", 0, "record", json.RawMessage(record)))
	}
	judged := func(n int, done bool) ledger.Event {
		rec := fmt.Sprintf(`{"decision":{"done":%t,"code":"JUDGE_COMMAND_FAILED"}}`, done)
		return f.system(task, "run-1", fmt.Sprintf("I%d-judge", n), ledger.SeverityInfo, opStepRecorded,
			"role", "judge", "record", json.RawMessage(rec))
	}
	if err := c.journal.append(instructionEvent(f, "loop"),
		completed("I1-coder", `{"text":"edited"}`), completed("I1-reviewer", `{"verdict":{"verdict":"request_changes"}}`), judged(1, false),
		completed("I2-coder", `{"text":"edited again"}`)); err != nil {
		t.Fatal(err)
	}
	c.journal.close() // a checkpoint
	// After it: iteration 2 ends and the judge goes on (not yet checkpointed).
	if err := c.store.AppendEvents([]ledger.Event{completed("I2-reviewer", `{"verdict":{"verdict":"request_changes"}}`), judged(2, false)}); err != nil {
		t.Fatal(err)
	}
	c.store.Close()
	x, load, err := loadIndex(c.store.Layout().StateDir())
	if err != nil {
		t.Fatal(err)
	}
	if load.Replayed != 2 {
		t.Errorf("replayed %d events, want 2", load.Replayed)
	}
	en := x.openEntries()[0]
	if en.DoneThrough != 2 || !slices.Equal(slices.Sorted(maps.Keys(en.Records)), []string{"I2-coder", "I2-judge", "I2-reviewer"}) {
		t.Fatalf("done through %d, records %v; want 2 and iteration 2's three", en.DoneThrough, slices.Sorted(maps.Keys(en.Records)))
	}
	if string(en.Records["I2-coder"]) != `{"text":"edited again"}` {
		t.Errorf("I2-coder's record %s", en.Records["I2-coder"])
	}

	// A resumed run's pipeline gets them: iteration 2 is closed and its
	// review is there for the next coder.
	p := newRun(en.instruction(), flowSteps(loopConfig("0", 5)), 2)
	applyRecords(&p, en.Records, en.DoneThrough)
	mem := runMemory{c: c, r: &run{pipeline: p}}
	if rec, ok := mem.Recall("I2-reviewer"); !ok || rec.Output.Verdict == nil || rec.Output.Verdict.Decision != workflow.RequestChanges {
		t.Errorf("I2-reviewer recalled %+v %v, want its verdict", rec, ok)
	}
	if rec, ok := mem.Recall("I2-judge"); !ok || rec.Decision == nil || rec.Decision.Done {
		t.Errorf("I2-judge recalled %+v %v, want its decision to go on", rec, ok)
	}
	if rec, ok := mem.Recall("I1-judge"); !ok || rec.Decision == nil {
		t.Errorf("I1-judge recalled %+v %v, want it closed", rec, ok)
	}
	if _, ok := mem.Recall("I3-coder"); ok {
		t.Error("I3-coder is recalled before it ran")
	}
}

// The index on its own, as the indexer goroutine uses it (tests only).

// lookup returns the entry of a message id, if it was ever acknowledged.
// Recent ones are in memory; older ones cost one bucket read.
func (x *instrIndex) lookup(id string) (indexEntry, bool, error) {
	if en, ok := x.remembered(id); ok {
		return en, true, nil
	}
	return readBucket(x.dir, id)
}

// checkpoint moves the acknowledgements folded since the last checkpoint
// into their buckets (synced), then replaces checkpoint.json. A crash in
// between leaves the old checkpoint, whose replay appends the same
// entries again; lookups take the first, identical, copy.
func (x *instrIndex) checkpoint() error {
	cp := x.snapshot()
	if err := cp.write(x.dir); err != nil {
		return err
	}
	x.checkpointed(cp)
	return nil
}
