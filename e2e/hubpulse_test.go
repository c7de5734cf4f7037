package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// TestQueuedRemoteStepIsNotStale: two steps of a lane with host = "hub"
// run at once (concurrency 2) on one agent host with one slot, each for
// longer than stale_after (8 s): the second waits on the hub's queue
// that long, its relay silent and idle. Its relay says it waits, so the
// controller judges it neither stale (which would stop it and queue it
// again at the tail) nor silent: both runs end DONE, each step run once,
// and no HEARTBEAT_STALE is recorded.
func TestQueuedRemoteStepIsNotStale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	creds := filepath.Join(dir, "admin.nk")
	cfg := strings.Replace(hubAgentConfig(h.url, creds, "10s"), `stop_grace = "200ms"`, "stop_grace = \"200ms\"\nconcurrency = 2", 1)
	root := newRoot(t, cfg)
	startAgent(t, h.url, creds, "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	first := ackTask(t, run(t, "send", "--root", root, "the step that runs at once"))
	second := ackTask(t, run(t, "send", "--root", root, "the step that waits for the agent"))
	waited := ""
	for _, taskID := range []string{first, second} {
		end := finished(t, root, taskID)
		errLog := stepLog(root, taskID, "S1", "stderr.log")
		if s := end.Payload.String("status"); s != ledger.StatusDone {
			t.Errorf("%s ended %s/%s, want DONE; stderr.log:\n%s", taskID, s, end.Payload.String("reason_code"), errLog)
		}
		if r := readRuns(t, root)[taskID]["S1"]; r.starts != 1 || r.done != 1 {
			t.Errorf("%s: the agent started %d and finished %d times, want once: %s", taskID, r.starts, r.done, traceOf(root, taskID, "S1"))
		}
		if strings.Contains(errLog, "waiting to start on an agent host of lane remote") {
			waited = taskID
		}
	}
	if waited == "" {
		t.Errorf("neither step's stderr.log says it waited for an agent host:\n%s\n%s",
			stepLog(root, first, "S1", "stderr.log"), stepLog(root, second, "S1", "stderr.log"))
	}
	if e, stale := findEvent(t, root, func(e ledger.Event) bool { return e.EventType == ledger.EventHeartbeatStale }); stale {
		t.Errorf("a queued step was judged stale: %+v", e)
	}
}

// TestRemoteStepComputingSilentlyIsNotStale: a remote step that computes
// for 12 s without printing (longer than stale_after, 8 s) is busy, not
// hung, as a local worker computing is: its agent's beats carry the
// step's CPU time, and its relay says it computes. The run ends DONE,
// the step run once, with no HEARTBEAT_STALE. The controller and the
// agent hold only their keys for the root: the beats pass under them.
func TestRemoteStepComputingSilentlyIsNotStale(t *testing.T) {
	t.Parallel()
	h, creds, agentKey := hubWithRootKeys(t)
	cfg := hubAgentConfig(h.url, creds, "1s")
	cfg = cfg[:strings.Index(cfg, "[[lanes]]")] + `[[lanes]]
name = "remote"
kind = "command"
host = "hub"
command = ["sh", "-c", "end=$(($(date +%s)+12)); while [ $(date +%s) -lt $end ]; do :; done; echo computed"]
stdin = true
stop_grace = "200ms"
`
	root := newRoot(t, cfg)
	startAgent(t, h.url, agentKey, "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "compute for a while"))
	end := finished(t, root, taskID)
	errLog := stepLog(root, taskID, "S1", "stderr.log")
	if s := end.Payload.String("status"); s != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s, want DONE; stderr.log:\n%s", s, end.Payload.String("reason_code"), errLog)
	}
	if e, stale := findEvent(t, root, func(e ledger.Event) bool { return e.EventType == ledger.EventHeartbeatStale }); stale {
		t.Errorf("the computing step was judged stale: %+v", e)
	}
	starts := 0
	for _, e := range events(t, root) {
		if e.TaskID == taskID && e.EventType == ledger.EventStepStarted {
			starts++
		}
	}
	if starts != 1 || strings.Count(errLog, "runs this step") != 1 {
		t.Errorf("%d STEP_STARTED, want the step run once; stderr.log:\n%s", starts, errLog)
	}
	if !strings.Contains(errLog, "the step computes on host-a without output") {
		t.Errorf("stderr.log does not say the step computes:\n%s", errLog)
	}
	if out := stepLog(root, taskID, "S1", "stdout.log"); !strings.Contains(out, "computed\n") {
		t.Errorf("stdout.log lacks the step's end:\n%s", out)
	}
}
