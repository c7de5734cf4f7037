package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
)

// TestSuccessorReadsBackAStepItsPausedLeaderRan: the leader is SIGSTOPped
// while an agent runs its remote step; the step ends and the leader's
// relay (its own process, not paused) closes the step's dispatch, but the
// leader records nothing. A successor on another folder (another host's
// view: none of the leader's logs) takes the root over, finds the step
// started without an end and no logs of it, and reads the step back from
// the hub instead of running it again: the run ends DONE with the step
// run once. The paused leader, resumed, steps down.
func TestSuccessorReadsBackAStepItsPausedLeaderRan(t *testing.T) {
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	creds := filepath.Join(dir, "admin.nk")
	traceDir := t.TempDir()
	trace := filepath.Join(traceDir, "runs.trace")
	cfg := strings.Replace(hubAgentConfig(h.url, creds, "1500ms"), "{root}/runs.trace", trace, 1)
	rootA, rootB := newRoot(t, cfg), newRoot(t, cfg)
	startAgent(t, h.url, creds, "host-a")
	a := startController(t, rootA)

	taskID := ackTask(t, run(t, "send", "--root", rootA, "run me once"))
	waitTrace(t, trace, "start "+taskID)
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			_ = a.cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	var runID string
	for _, e := range events(t, rootA) {
		if e.TaskID == taskID && e.RunID != "" {
			runID = e.RunID
		}
	}
	if runID == "" {
		t.Fatal("no run of the task in the leader's ledger")
	}
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: h.url, Creds: creds, Name: "test"}, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	key := steps.Key(runID, "S1")
	waitFor(t, 30*time.Second, "the paused leader's relay closed the step's dispatch", func() bool {
		r, err := conn.Last(context.Background(), key, steps.TypeDispatch)
		return err == nil && r != nil && r.Type == steps.TypeClosed
	})

	// The successor starts only now: the step has ended under a leader
	// that recorded nothing of it.
	b, bReady := spawnController(t, rootB)
	select {
	case _, ok := <-bReady:
		if !ok {
			t.Fatalf("the successor exited: %v", b.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the successor did not take over within 30s")
	}
	defer b.stop()
	end := finished(t, rootB, taskID)
	if s := end.Payload.String("status"); s != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s under the successor, want DONE", s, end.Payload.String("reason_code"))
	}
	if r := readRuns(t, traceDir)[taskID]["S1"]; r.starts != 1 || r.done != 1 {
		t.Errorf("the step started %d and finished %d times, want once: %q", r.starts, r.done, traceOf(traceDir, taskID, "S1"))
	}
	if log := stepLog(rootB, taskID, "S1", "stderr.log"); !strings.Contains(log, "read back from the hub") {
		t.Errorf("the successor's step log does not say the step was read back:\n%s", log)
	}
	if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the deposed leader did not step down within 30s of SIGCONT")
	}
}
