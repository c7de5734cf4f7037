package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestTakeoverByThePythonToolStopsTheLiveControllersWorker: the Python
// tool takes no lock: its `takeover` appends LEASE_TAKEOVER (its own
// shape: no generation, no successor) to events.jsonl while daokit's
// controller runs the step. The controller's liveness loop reads it
// there and stops acting on the step: TAKEOVER_SEEN, its worker stopped,
// the step failed as LEASE_LOST, never started again.
func TestTakeoverByThePythonToolStopsTheLiveControllersWorker(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("60s"))
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "work for a minute"))
	started := waitEvent(t, root, "STEP_STARTED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	at := time.Now().UTC().Format("2006-01-02T15:04:05.000000+00:00")
	// As the Python tool writes them (daokit-compat.md §1.6, E7 and E8).
	lines := fmt.Sprintf(`{"schema_version":"1.0.0","event_id":"evt_73516e44daf44912a688ec5b0d429bcd","task_id":%q,"run_id":%q,"step_id":null,"event_type":"LEASE_TAKEOVER","severity":"INFO","timestamp":%q,"payload":{"takeover_at":%q,"adopted_step_ids":[%q],"failed_step_ids":[],"reason_code":"MANUAL_TAKEOVER"},"dedup_key":"succession:%s:%s:%s"}
{"schema_version":"1.0.0","event_id":"evt_0b7c1f0e5f7a4f1c9d2e3a4b5c6d7e8f","task_id":%q,"run_id":%q,"step_id":%q,"event_type":"SYSTEM","severity":"INFO","timestamp":%q,"payload":{"operation":"LEASE_ADOPTED","reason_code":"VALID_UNEXPIRED_LEASE","takeover_at":%q},"dedup_key":"lease-adopted:%s:%s:%s:%s"}
`, started.TaskID, started.RunID, at, at, started.StepID, started.TaskID, started.RunID, at,
		started.TaskID, started.RunID, started.StepID, at, at, started.TaskID, started.RunID, started.StepID, at)
	f, err := os.OpenFile(filepath.Join(root, ledger.StateDir, ledger.EventsFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
	f.Close()

	seen := waitEvent(t, root, "TAKEOVER_SEEN", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "TAKEOVER_SEEN"
	})
	if seen.Payload.String("takeover_event_id") != "evt_73516e44daf44912a688ec5b0d429bcd" || seen.StepID != started.StepID {
		t.Fatalf("TAKEOVER_SEEN %+v", seen)
	}
	failed := waitEvent(t, root, "STEP_FAILED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepFailed
	})
	if failed.Payload.String("reason_code") != "LEASE_LOST" {
		t.Fatalf("the step failed as %q", failed.Payload.String("reason_code"))
	}
	waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	n := 0
	for _, e := range events(t, root) {
		if e.TaskID == taskID && e.EventType == ledger.EventStepStarted {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the lost step started %d times", n)
	}
}
