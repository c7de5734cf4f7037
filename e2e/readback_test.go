package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// readBackConfig is one simulated agent that traces its runs (see
// readRuns) and takes long enough to be caught running.
var readBackConfig = drillTimings + `
[[lanes]]
name = "worker"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--duration", "3s", "--lines", "3", "--trace", "{root}/runs.trace", "--", "{instruction}"]
stop_grace = "200ms"
`

// TestResultNobodyReadIsReadBack freezes the controller (SIGSTOP) while
// its agent runs, lets the agent print its result and exit with nobody
// reading its output, and then kills the controller (SIGKILL). The
// agent wrote into its log itself, so the successor finds the result
// there, ends the step from it and does not run the agent again: a
// result that waited in a pipe would have died with the controller.
func TestResultNobodyReadIsReadBack(t *testing.T) {
	t.Parallel()
	root := newRoot(t, readBackConfig)
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "--no-start", "finish while nobody reads"))
	trace := filepath.Join(root, "runs.trace")
	started := waitTrace(t, trace, "start "+taskID)
	// Frozen once its STEP_STARTED is durable: before it, a successor
	// knows nothing of the attempt and rightly runs the step again.
	waitEvent(t, root, "STEP_STARTED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	if err := syscall.Kill(ctl.pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitTrace(t, trace, "done "+taskID)
	agent, _ := strconv.Atoi(strings.Fields(started)[3])
	// Exited: a zombie of the frozen controller's, or reaped already.
	deadline := time.Now().Add(20 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(agent) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent %d did not exit", agent)
		}
		time.Sleep(20 * time.Millisecond) // polling /proc; the condition decides
	}
	if err := syscall.Kill(ctl.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctl.kill() // reaps it
	ctl = startController(t, root)
	defer ctl.stop()

	end := finished(t, root, taskID)
	if end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s, want DONE", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	// The pipeline is written before RUN_FINISHED: it says DONE too (a
	// session bound while reading back once made it invalid, unwritable).
	if p := ledger.LoadSnapshot(root).Pipeline; p.Err != nil || p.Value.TaskID != taskID || p.Value.Status != ledger.StatusDone {
		t.Errorf("pipeline_state.json: task %s status %s (%v), want %s DONE", p.Value.TaskID, p.Value.Status, p.Err, taskID)
	}
	if r := readRuns(t, root)[taskID]["S1"]; r.starts != 1 || r.done != 1 {
		t.Errorf("the agent started %d and finished %d times, want once: %s", r.starts, r.done, traceOf(root, taskID, "S1"))
	}
	back, ok := findEvent(t, root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "STEP_READ_BACK" })
	if !ok || back.Payload.String("why") != "result_succeeded" {
		t.Errorf("STEP_READ_BACK (found %v) says %q, want the result read back (result_succeeded)", ok, back.Payload.String("why"))
	}
	done, ok := findEvent(t, root, func(e ledger.Event) bool { return e.TaskID == taskID && e.EventType == ledger.EventStepCompleted })
	if fromLog, _ := done.Payload.Get("from_log"); !ok || string(fromLog) != "true" {
		t.Errorf("STEP_COMPLETED (found %v) has from_log %q, want it ended from the log", ok, fromLog)
	}
}

// waitTrace waits until runs.trace holds a line that starts with prefix
// and returns it.
func waitTrace(t *testing.T, trace, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(trace)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs.trace has no %q within 30s:\n%s", prefix, data)
		}
		time.Sleep(10 * time.Millisecond) // polling a file; the condition decides
	}
}
