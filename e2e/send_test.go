package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

func TestSendWaitRunsTheSimulatedAgentToDone(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("1s"))
	ctl := startController(t, root)
	r := run(t, "send", "--root", root, "--wait", "add a --json flag to status")
	if r.code != 0 || !strings.Contains(r.stdout, "is DONE") || !strings.Contains(r.stdout, "result · ") {
		t.Fatalf("send --wait: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	taskID := strings.Fields(strings.TrimPrefix(strings.SplitN(r.stdout, "\n", 2)[0], "task_id="))[0]
	snap := ledger.LoadSnapshot(root)
	if p := snap.Pipeline.Value; !snap.Pipeline.OK() || p.Status != ledger.StatusDone || p.TaskID != taskID {
		t.Fatalf("pipeline %s %s, err %v", p.Status, p.TaskID, snap.Pipeline.Err)
	}
	seen := map[string]bool{}
	for _, e := range events(t, root) {
		if err := e.Validate(); err != nil {
			t.Errorf("event does not validate: %v", err)
		}
		if e.TaskID == taskID {
			seen[e.EventType] = true
			seen[op(e)] = true
		}
	}
	for _, want := range []string{"INSTRUCTION_RECEIVED", "RUN_STATE", "WORKER_OUTPUT", ledger.EventStepStarted, ledger.EventStepCompleted, ledger.EventAcceptancePassed, "RUN_FINISHED"} {
		if !seen[want] {
			t.Errorf("no %s event for the run", want)
		}
	}
	if pids := workersOf(root, taskID); len(pids) != 0 {
		t.Errorf("worker processes left behind: %v", pids)
	}
	if c := run(t, "check", "--root", root); c.code != 0 {
		t.Errorf("check after the run: %d %s", c.code, c.stderr)
	}
	ctl.stop()
}

const hangingConfig = `
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "30s"
stale_after = "60s"

[[lanes]]
name = "worker"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--hang-after", "2", "--", "{instruction}"]
stop_grace = "500ms"
timeout = "%TIMEOUT%"
`

func startedPID(t *testing.T, root, taskID string) int {
	t.Helper()
	e := waitEvent(t, root, "STEP_STARTED", 20*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	return payloadInt(e, "pid")
}

func finished(t *testing.T, root, taskID string) ledger.Event {
	t.Helper()
	return waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
}

func ackTask(t testing.TB, r result) string {
	t.Helper()
	if r.code != 0 || !strings.HasPrefix(r.stdout, "task_id=") {
		t.Fatalf("send: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	return strings.Fields(strings.TrimPrefix(r.stdout, "task_id="))[0]
}

func TestCancelLeavesNoChildBehind(t *testing.T) {
	t.Parallel()
	root := newRoot(t, strings.ReplaceAll(hangingConfig, "%TIMEOUT%", "0s"))
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "a job that hangs"))
	pid := startedPID(t, root, taskID)
	if c := run(t, "send", "--root", root, "--cancel"); c.code != 0 {
		t.Fatalf("send --cancel: %+v", c)
	}
	end := finished(t, root, taskID)
	if got := end.Payload.String("reason_code"); got != "WORKER_CANCELLED" {
		t.Fatalf("reason %s, want WORKER_CANCELLED", got)
	}
	waitGone(t, pid)
	ctl.stop()
}

func TestTimeoutLeavesNoChildBehind(t *testing.T) {
	t.Parallel()
	root := newRoot(t, strings.ReplaceAll(hangingConfig, "%TIMEOUT%", "1s"))
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "a job that outlives its time"))
	pid := startedPID(t, root, taskID)
	end := finished(t, root, taskID)
	if got := end.Payload.String("reason_code"); got != "WORKER_TIMEOUT" {
		t.Fatalf("reason %s, want WORKER_TIMEOUT", got)
	}
	timedOut := false
	for _, e := range events(t, root) {
		timedOut = timedOut || (e.TaskID == taskID && op(e) == "RUN_STATE" && e.Payload.String("to") == "timedOut")
	}
	if !timedOut {
		t.Errorf("no timedOut transition")
	}
	waitGone(t, pid)
	ctl.stop()
}

func TestSendStartsADetachedController(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("300ms"))
	r := run(t, "send", "--root", root, "--wait", "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "starting a controller") {
		t.Fatalf("send without a controller: %+v", r)
	}
	pid, err := ledger.LockHolder(root)
	if err != nil || pid == 0 {
		t.Fatalf("no controller holds the root after send: %d %v", pid, err)
	}
	// It outlives send (closing the window never stops work in flight).
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("controller %d gone: %v", pid, err)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if h, _ := ledger.LockHolder(root); h == 0 {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("controller did not stop on SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSendReportsWhyTheStartedControllerExited: a controller that cannot
// start is reported in its own words (with one code), not as a vague
// time-out; an invalid daokit.toml is reported before any controller
// starts.
func TestSendReportsWhyTheStartedControllerExited(t *testing.T) {
	t.Parallel()
	root := newRoot(t, "[heartbeat]\nwarning_after = \"5s\"\nstale_after = \"1s\"\n")
	r := run(t, "send", "--root", root, "hello")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "E_CONFIG_INVALID: ") || !strings.Contains(r.stderr, "stale_after") || strings.Contains(r.stderr, "exited") {
		t.Fatalf("bad daokit.toml: code %d stderr %q", r.code, r.stderr)
	}
	root = newRoot(t, "")
	if err := os.Mkdir(filepath.Join(root, "state", "controller.log"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = run(t, "send", "--root", root, "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "\nE_SEND_FAILED: ") || !strings.Contains(r.stderr, "exited before it was ready") ||
		!strings.Contains(r.stderr, "controller.log") || strings.Count(r.stderr, "E_") != 1 {
		t.Fatalf("controller that cannot log: code %d stderr %q", r.code, r.stderr)
	}
}

// hooksConfig adds controller hooks to the simulated lane: one that
// rewrites the instruction before dispatch, one that fails, and one that
// keeps what it reads after acceptance.
const hooksConfig = `
[[hooks]]
point = "pre-dispatch"
name = "guard"
command = ["sh", "-c", "cat > /dev/null; echo '{\"relay_context\":{\"latest_instruction\":\"run the tests first\"}}'"]

[[hooks]]
point = "pre-dispatch"
name = "broken"
command = ["sh", "-c", "exit 7"]

[[hooks]]
point = "post-accept"
name = "notify"
command = ["sh", "-c", "tee accepted.json"]
`

func TestHooksOfDaokitTomlRunAroundAStep(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("300ms")+hooksConfig)
	ctl := startController(t, root)
	r := run(t, "send", "--root", root, "--wait", "add a --json flag")
	if r.code != 0 {
		t.Fatalf("send --wait: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	taskID := ackTask(t, r)
	hooks := map[string]string{}
	var command string
	for _, e := range events(t, root) {
		switch {
		case e.TaskID != taskID:
		case op(e) == "HOOK_RAN" || op(e) == "HOOK_SKIPPED":
			hooks[e.Payload.String("hook")] = op(e) + " " + e.Payload.String("reason_code")
		case e.EventType == ledger.EventStepStarted:
			raw, _ := e.Payload.Get("command")
			command = string(raw)
		}
	}
	want := map[string]string{"guard": "HOOK_RAN ", "broken": "HOOK_SKIPPED HOOK_EXIT", "notify": "HOOK_RAN "}
	for name, w := range want {
		if hooks[name] != w {
			t.Errorf("hook %s: recorded %q, want %q", name, hooks[name], w)
		}
	}
	if !strings.Contains(command, "run the tests first") {
		t.Errorf("the worker was not started on the hook's instruction: %s", command)
	}
	data, err := os.ReadFile(filepath.Join(root, "accepted.json"))
	if err != nil || !strings.Contains(string(data), taskID) || !strings.Contains(string(data), `"next_action":"complete"`) {
		t.Errorf("post-accept hook read %s (%v)", data, err)
	}
	ctl.stop()
}
