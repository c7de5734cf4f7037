package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// hubAgentRootID names the drills' root on their hub.
const hubAgentRootID = "e2e"

// hubAgentConfig is a root whose one lane runs on agent hosts through
// the hub at url (key file creds): a simulated agent that traces its
// runs (runs.trace) and prints the DAOKIT_AGENT it was given, taking
// duration. Silence is judged later than in drillTimings: a step waits
// up to the agents' AckWait (1 s) for its redelivery, printing nothing.
func hubAgentConfig(url, creds, duration string) string {
	return `
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "4s"
stale_after = "8s"

[lease]
ttl = "1s"

[restart]
max_restarts = 20
window = "10m"
backoff_base = "50ms"
backoff_cap = "200ms"

[hub]
url = "` + url + `"
root_id = "` + hubAgentRootID + `"
credentials = "` + creds + `"
# A SIGKILLed controller's successor leads the root once its lease
# lapses: a short lease keeps the drills' successors on time.
lease_ttl = "1s"

[[lanes]]
name = "remote"
kind = "sim"
host = "hub"
command = ["sh", "-c", "echo agent=$DAOKIT_AGENT; exec \"$0\" worker sim --duration ` + duration + ` --lines 4 --trace {root}/runs.trace -- \"$1\"", "{daokit}", "{instruction}"]
stop_grace = "200ms"
`
}

// agentProc is a `daokit agent` child of the test.
type agentProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// agentOnlyBinary is daokit installed alone, as on an agent host: a copy
// in a directory with no daokit-hub beside it, once for the package's
// tests (the daokit binary never links the hub; daokit-hub does).
var agentOnlyBinary = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(filepath.Dir(daokit), "agent-host")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := os.ReadFile(daokit)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "daokit")
	return bin, os.WriteFile(bin, data, 0o755)
})

// startAgent runs `daokit agent` named name for lane remote of the
// drills' root, with AckWait 1 s; the cleanup kills it.
func startAgent(t testing.TB, url, creds, name string) *agentProc {
	t.Helper()
	return startAgentBin(t, daokit, url, creds, name)
}

// startAgentBin is startAgent with the daokit binary bin.
func startAgentBin(t testing.TB, bin, url, creds, name string) *agentProc {
	t.Helper()
	return startAgentLanes(t, bin, url, creds, name, "remote")
}

// startAgentLanes is startAgentBin for lanes (comma-separated).
func startAgentLanes(t testing.TB, bin, url, creds, name, lanes string) *agentProc {
	t.Helper()
	cmd := exec.Command(bin, "agent", "--hub", url, "--credentials", creds, "--root-id", hubAgentRootID, "--name", name,
		"--lanes", lanes, "--ack-wait", "1s", "--work", t.TempDir())
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &agentProc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-p.done })
	return p
}

// hubAgentRoot starts a hub, a root configured for it and an agent
// host named first; it returns the root, the hub's URL and key file.
func hubAgentRoot(t *testing.T, duration, first string) (root, url, creds string, a *agentProc) {
	t.Helper()
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	creds = filepath.Join(dir, "admin.nk")
	root = newRoot(t, hubAgentConfig(h.url, creds, duration))
	if first != "" {
		a = startAgent(t, h.url, creds, first)
	}
	return root, h.url, creds, a
}

// doneOnce waits for taskID's run to end and wants it DONE, its step S1
// run to its end once by the agents; it returns the run's end.
func doneOnce(t *testing.T, root, taskID string) ledger.Event {
	t.Helper()
	end := finished(t, root, taskID)
	if s := end.Payload.String("status"); s != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s, want DONE; stderr.log:\n%s", s, end.Payload.String("reason_code"), stepLog(root, taskID, "S1", "stderr.log"))
	}
	if r := readRuns(t, root)[taskID]["S1"]; r.starts != 1 || r.done != 1 {
		t.Errorf("the agent started %d and finished %d times, want once: %s", r.starts, r.done, traceOf(root, taskID, "S1"))
	}
	return end
}

// stepLog reads one of the step's artifact logs (stdout.log, stderr.log).
func stepLog(root, taskID, step, name string) string {
	matches, _ := filepath.Glob(filepath.Join(root, "artifacts", taskID, "*", step, name))
	if len(matches) == 0 {
		return ""
	}
	data, _ := os.ReadFile(matches[0])
	return string(data)
}

// TestStepRunsOnAgentHost: a step of a lane with host = "hub" is offered
// through a real `daokit hub` and run by a `daokit agent` installed
// without daokit-hub (as agent hosts run it; the hub's key),
// which gives it DAOKIT_AGENT and its own daokit binary; its output
// comes back into the step's logs and its result ends the run DONE, the
// agent having run it once: the offer the controller made ahead of the
// step's relay (no relay process start between its instants), which the
// relay then followed.
func TestStepRunsOnAgentHost(t *testing.T) {
	t.Parallel()
	bin, err := agentOnlyBinary()
	if err != nil {
		t.Fatal(err)
	}
	root, url, creds, _ := hubAgentRoot(t, "300ms", "")
	startAgentBin(t, bin, url, creds, "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "run me on another host"))
	end := doneOnce(t, root, taskID)
	if out := stepLog(root, taskID, "S1", "stdout.log"); !strings.Contains(out, "agent=host-a\n") {
		t.Errorf("stdout.log lacks agent=host-a (DAOKIT_AGENT):\n%s", out)
	}
	if errLog := stepLog(root, taskID, "S1", "stderr.log"); !strings.Contains(errLog, "agent host-a runs this step (delivery 1)") {
		t.Errorf("stderr.log does not say which agent ran the step:\n%s", errLog)
	}
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: url, Creds: creds, Name: "test"}, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if r := startRecord(t, conn, rt, steps.Key(end.RunID, "S1")); r == nil || r.SpawnAt == 0 || r.RelayAt != r.SpawnAt {
		t.Errorf("the agent's start record is %+v, want the offer the controller made ahead of its relay (relay_at = spawn_at)", r)
	}
}

// TestCancelStopsTheStepOnItsAgentHost: `send --cancel` stops a remote
// step as a local one: the relay's SIGTERM becomes a stop request, the
// agent stops the step's process, and the run ends WORKER_CANCELLED.
func TestCancelStopsTheStepOnItsAgentHost(t *testing.T) {
	t.Parallel()
	root, _, _, _ := hubAgentRoot(t, "60s", "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "cancel me over there"))
	started := waitTrace(t, filepath.Join(root, "runs.trace"), "start "+taskID)
	sim, _ := strconv.Atoi(strings.Fields(started)[3])
	if c := run(t, "send", "--root", root, "--cancel"); c.code != 0 {
		t.Fatalf("send --cancel: %+v", c)
	}
	end := finished(t, root, taskID)
	if got := end.Payload.String("reason_code"); got != "WORKER_CANCELLED" {
		t.Fatalf("reason %s, want WORKER_CANCELLED", got)
	}
	waitGone(t, sim)
}

// TestAgentKilledMidStepIsRedelivered: the agent host running a step is
// SIGKILLed with its step (a host lost); the hub hands the step to
// another agent once AckWait passes, which runs it to its end, and the
// run ends DONE. A late end and line stamped with the lost agent's
// delivery (what a cut-off agent would send after coming back) are
// ignored: the run does not fail, and the line is not in the step's log.
func TestAgentKilledMidStepIsRedelivered(t *testing.T) {
	t.Parallel()
	root, url, creds, first := hubAgentRoot(t, "3s", "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "survive a lost host"))
	trace := filepath.Join(root, "runs.trace")
	started := waitTrace(t, trace, "start "+taskID)
	sim, _ := strconv.Atoi(strings.Fields(started)[3])
	_ = first.cmd.Process.Kill()
	<-first.done
	_ = syscall.Kill(-sim, syscall.SIGKILL) // its step dies with the host
	startAgent(t, url, creds, "host-b")
	waitStepLog(t, root, taskID, "stderr.log", "agent host-b runs this step (delivery 2)")

	// What the lost agent could still send: ignored, being delivery 1.
	e := waitEvent(t, root, "STEP_STARTED", 10*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: url, Creds: creds, Name: "late-agent"}, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	key := steps.Key(e.RunID, "S1")
	ctx := context.Background()
	for _, r := range []steps.Record{
		{Type: steps.TypeLine, Dispatch: 1, Delivery: 1, Seq: 99, Lines: []steps.Line{{Stream: steps.StreamStdout, Text: "LATE LINE OF A LOST AGENT"}}},
		{Type: steps.TypeEnd, Dispatch: 1, Delivery: 1, ExitCode: 3, Agent: "host-a"},
	} {
		if err := conn.Publish(ctx, key, r); err != nil {
			t.Fatal(err)
		}
	}

	end := finished(t, root, taskID)
	if s := end.Payload.String("status"); s != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s, want DONE", s, end.Payload.String("reason_code"))
	}
	if out := stepLog(root, taskID, "S1", "stdout.log"); strings.Contains(out, "LATE LINE") || !strings.Contains(out, "agent=host-b\n") {
		t.Errorf("stdout.log has the lost agent's late line, or not host-b's run:\n%s", out)
	}
	runs := traceOf(root, taskID, "S1")
	if len(runs) != 3 { // host-a's start, host-b's start and done
		t.Errorf("runs.trace %q, want host-a's start, then host-b's start and done", runs)
	}
	if _, failed := findEvent(t, root, func(e ledger.Event) bool { return e.TaskID == taskID && e.EventType == ledger.EventStepFailed }); failed {
		t.Errorf("a STEP_FAILED was recorded: the late end of the lost delivery was taken")
	}
}

// TestControllerKilledMidStepFollowsTheSameStep: the controller is
// SIGKILLed while an agent host runs its step; its successor kills the
// relay it left, finds no result in its logs, and its next relay follows
// the same dispatch (the step's last, never closed) instead of offering
// the step again: the agent runs it once, and the run ends DONE with its
// whole output in the step's log.
func TestControllerKilledMidStepFollowsTheSameStep(t *testing.T) {
	t.Parallel()
	root, _, _, _ := hubAgentRoot(t, "3s", "host-a")
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "outlive the controller"))
	waitTrace(t, filepath.Join(root, "runs.trace"), "start "+taskID)
	waitEvent(t, root, "STEP_STARTED", 10*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	ctl.kill()
	ctl = startController(t, root)
	defer ctl.stop()
	doneOnce(t, root, taskID)
	relays := 0
	for _, e := range events(t, root) {
		if e.TaskID == taskID && e.EventType == ledger.EventStepStarted {
			relays++
		}
	}
	if relays != 2 {
		t.Errorf("%d STEP_STARTED, want 2: the first controller's relay, and its successor's that followed the step", relays)
	}
	if errLog := stepLog(root, taskID, "S1", "stderr.log"); strings.Contains(errLog, "delivery 2") {
		t.Errorf("the step was delivered twice:\n%s", errLog)
	}
}

// waitStepLog waits until the step's log holds want.
func waitStepLog(t *testing.T, root, taskID, name, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if strings.Contains(stepLog(root, taskID, "S1", name), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has no %q within 30s:\n%s", name, want, stepLog(root, taskID, "S1", name))
		}
		time.Sleep(20 * time.Millisecond) // polling a file; the condition decides
	}
}

// TestRemoteStepsChangeComesBackForReview: a lane in worktrees whose
// steps run on an agent host, with no git remote configured: the step's
// relay publishes a bundle of its base commit to the hub, the agent runs
// the simulated agent in a worktree of it, and the change it made comes
// back as a patch into the step's worktree on the controller's host,
// where it waits for review like a local step's; `send --accept`
// delivers it to main.
func TestRemoteStepsChangeComesBackForReview(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	// The controller and the agent hold only their keys for the root:
	// the bundle and the patch pass under them.
	h, creds, agentKey := hubWithRootKeys(t)
	root := newRoot(t, worktreeConfig(project, "300ms")+`host = "hub"

[hub]
url = "`+h.url+`"
root_id = "`+hubAgentRootID+`"
credentials = "`+creds+`"
`)
	startAgentLanes(t, daokit, h.url, agentKey, "host-a", "worker")
	ctl := startController(t, root)
	defer ctl.stop()
	before := gittest.Git(t, project, "rev-parse", "main")
	taskID := ackTask(t, run(t, "send", "--root", root, "add a cache"))
	pending := waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
	})
	if st := gittest.Git(t, pending.Payload.String("path"), "status", "--porcelain"); st == "" {
		t.Fatalf("the remote step's change is not in its worktree here; stderr.log:\n%s", stepLog(root, taskID, "S1", "stderr.log"))
	}
	if acc := run(t, "send", "--root", root, "--accept"); acc.code != 0 {
		t.Fatalf("send --accept: %+v", acc)
	}
	passed := waitEvent(t, root, "ACCEPTANCE_PASSED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed
	})
	main := gittest.Git(t, project, "rev-parse", "main")
	if main == before || passed.Payload.String("commit") != main {
		t.Fatalf("main %s (was %s); ACCEPTANCE_PASSED %v", main, before, passed.Payload)
	}
	if diff := gittest.Git(t, project, "diff", "--stat", before, "main"); !strings.Contains(diff, "2 files changed") {
		t.Errorf("main does not hold the sim's two edits:\n%s", diff)
	}
	if out := stepLog(root, taskID, "S1", "stderr.log"); !strings.Contains(out, "agent host-a runs this step") {
		t.Errorf("the step did not run on the agent host:\n%s", out)
	}
}

// TestStaleRelayOfAnEndedStepIsReadBack: a step's relay goes silent
// (SIGSTOPped here; stuck, in the cluster drill) while its step runs to
// its end on the agent host. The controller judges it stale and stops
// it; the relay, let go on, closes its dispatch as the step ended; the
// step's next attempt reads that end back from the hub instead of
// running the step again, and the run ends DONE with the step run once.
func TestStaleRelayOfAnEndedStepIsReadBack(t *testing.T) {
	t.Parallel()
	root, _, _, _ := hubAgentRoot(t, "1s", "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "run once, told late"))
	e := waitEvent(t, root, "STEP_STARTED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	relay := payloadInt(e, "pid")
	if relay <= 0 {
		t.Fatalf("STEP_STARTED without the relay's pid: %+v", e.Payload)
	}
	// Stopped before the step's end reaches it (the step takes 1s on its
	// agent): the end waits in the hub.
	if err := syscall.Kill(relay, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitTrace(t, filepath.Join(root, "runs.trace"), "done "+taskID)
	waitEvent(t, root, "HEARTBEAT_STALE", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventHeartbeatStale
	})
	if err := syscall.Kill(relay, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	doneOnce(t, root, taskID)
	if errLog := stepLog(root, taskID, "S1", "stderr.log"); !strings.Contains(errLog, "read back from the hub") {
		t.Errorf("stderr.log does not say the step was read back:\n%s", errLog)
	}
}

// TestDispatchItsControllerNeverRecordedIsReadBack: a controller offers
// a step before it records the step's start; one that dies (or is
// deposed) in between leaves a dispatch its successor has no record of.
// Here the second instruction's step ran to its end on the hub under a
// controller that recorded nothing of it (its records written as an
// agent and a relay would); the successor numbers its attempt as the
// dead controller did (1), and reads that end back instead of running
// the step again.
func TestDispatchItsControllerNeverRecordedIsReadBack(t *testing.T) {
	t.Parallel()
	root, url, creds, _ := hubAgentRoot(t, "300ms", "")
	ctl := startController(t, root)
	first := ackTask(t, run(t, "send", "--root", root, "hold the lane"))
	waitEvent(t, root, "STEP_STARTED", 10*time.Second, func(e ledger.Event) bool {
		return e.TaskID == first && e.EventType == ledger.EventStepStarted
	})
	second := ackTask(t, run(t, "send", "--root", root, "ran before it was recorded"))
	received := waitEvent(t, root, "INSTRUCTION_RECEIVED", 10*time.Second, func(e ledger.Event) bool {
		return e.TaskID == second && op(e) == "INSTRUCTION_RECEIVED" && e.RunID != ""
	})
	ctl.kill()
	if _, started := findEvent(t, root, func(e ledger.Event) bool {
		return e.TaskID == second && e.EventType == ledger.EventStepStarted
	}); started {
		t.Fatal("the second instruction's step started while the first held the lane")
	}

	ranUnrecorded(t, url, creds, steps.Key(received.RunID, "S1"), 1, 1)

	startAgent(t, url, creds, "host-a")
	ctl = startController(t, root)
	defer ctl.stop()
	for _, taskID := range []string{first, second} {
		if end := finished(t, root, taskID); end.Payload.String("status") != ledger.StatusDone {
			t.Fatalf("%s ended %s/%s, want DONE; stderr.log:\n%s", taskID, end.Payload.String("status"), end.Payload.String("reason_code"),
				stepLog(root, taskID, "S1", "stderr.log"))
		}
	}
	if r := readRuns(t, root)[second]["S1"]; r.starts != 0 {
		t.Errorf("the step that ran under the dead controller ran again here: %s", traceOf(root, second, "S1"))
	}
	if errLog := stepLog(root, second, "S1", "stderr.log"); !strings.Contains(errLog, "read back from the hub") {
		t.Errorf("stderr.log does not say the step was read back:\n%s", errLog)
	}
	if out := stepLog(root, second, "S1", "stdout.log"); !strings.Contains(out, "agent=host-gone") {
		t.Errorf("stdout.log lacks the output the step printed where it ran:\n%s", out)
	}
}

// TestRetriedStepsUnrecordedDispatchIsReadBack: the same as
// TestDispatchItsControllerNeverRecordedIsReadBack for a step whose
// earlier attempt is on record: attempt 1 failed on its agent and was
// recorded, and the controller died before it recorded attempt 2, which
// it had offered and which ran to its end on the hub (its records
// written as an agent and a relay would). The successor numbers its
// next attempt 2 as well (attempt numbers continue across controllers)
// and reads that dispatch back instead of running the step again.
func TestRetriedStepsUnrecordedDispatchIsReadBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	url, creds := h.url, filepath.Join(dir, "admin.nk")
	fixed := filepath.Join(dir, "fixed")
	cfg := hubAgentConfig(url, creds, "300ms")
	// Attempt 1 fails until the test fixes it; the restart waits long
	// enough for the controller to die in between.
	cfg = strings.Replace(cfg, `"sh", "-c", "echo agent=`, `"sh", "-c", "test -e `+fixed+` || exit 3; echo agent=`, 1)
	cfg = strings.Replace(cfg, `backoff_base = "50ms"`, `backoff_base = "1m"`, 1)
	cfg = strings.Replace(cfg, `backoff_cap = "200ms"`, `backoff_cap = "1m"`, 1)
	root := newRoot(t, cfg)
	startAgent(t, url, creds, "host-a")
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "fails once, then ran unrecorded"))
	scheduled := waitEvent(t, root, "restart_scheduled", 20*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.Payload.String("to") == "restart_scheduled"
	})
	ctl.kill()

	ranUnrecorded(t, url, creds, steps.Key(scheduled.RunID, "S1"), 2, 2)
	// Run again, the step would now succeed: the test sees it ran.
	if err := os.WriteFile(fixed, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	ctl = startController(t, root)
	defer ctl.stop()
	if end := finished(t, root, taskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s, want DONE; stderr.log:\n%s", end.Payload.String("status"), end.Payload.String("reason_code"),
			stepLog(root, taskID, "S1", "stderr.log"))
	}
	if runs := traceOf(root, taskID, "S1"); len(runs) != 0 {
		t.Errorf("the step that ran under the dead controller ran again here: %s", runs)
	}
	if errLog := stepLog(root, taskID, "S1", "stderr.log"); !strings.Contains(errLog, "read back from the hub") {
		t.Errorf("stderr.log does not say the step was read back:\n%s", errLog)
	}
	var attempts []int
	for _, e := range events(t, root) {
		if e.TaskID == taskID && e.EventType == ledger.EventStepStarted {
			attempts = append(attempts, payloadInt(e, "attempt"))
		}
	}
	if !slices.Equal(attempts, []int{1, 2}) {
		t.Errorf("the step's attempts on record: %v, want [1 2]", attempts)
	}
}

// ranUnrecorded stores on the hub at url what a step key's dispatch
// leaves that attempt offered and agent host-gone ran to its end
// (printing agent=host-gone), its relay closing it, all as an agent and
// a relay would, with no controller recording any of it.
func ranUnrecorded(t *testing.T, url, creds, key string, dispatch, attempt int) {
	t.Helper()
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: url, Creds: creds, Name: "dead-controller"}, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, r := range []steps.Record{
		{Type: steps.TypeDispatch, Dispatch: dispatch, Attempt: attempt},
		{Type: steps.TypeStart, Dispatch: dispatch, Delivery: 1, Agent: "host-gone", PID: 1},
		{Type: steps.TypeLine, Dispatch: dispatch, Delivery: 1, Seq: 1, Lines: []steps.Line{{Stream: steps.StreamStdout, Text: "agent=host-gone"}}},
		{Type: steps.TypeEnd, Dispatch: dispatch, Delivery: 1, Agent: "host-gone"},
		{Type: steps.TypeClosed, Dispatch: dispatch, Attempt: attempt, Ran: true},
	} {
		if err := conn.Publish(context.Background(), key, r); err != nil {
			t.Fatal(err)
		}
	}
}
