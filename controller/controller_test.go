package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/relay/relaytest"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// shellConfig returns settings whose one lane runs script with sh, the
// instruction on stdin, with fast liveness checks.
func shellConfig(script string) config.Config {
	cfg := config.DefaultConfig()
	lane := config.DefaultLaneConfig(config.DefaultLane, config.KindCommand)
	lane.Command = []string{"sh", "-c", script}
	lane.Stdin = true
	lane.StopGrace = config.Duration(200 * time.Millisecond)
	cfg.Lanes = []config.Lane{lane}
	cfg.Heartbeat = config.Heartbeat{
		CheckInterval: config.Duration(100 * time.Millisecond),
		WarningAfter:  config.Duration(time.Second),
		StaleAfter:    config.Duration(2 * time.Second),
	}
	cfg.Restart.BackoffBase = config.Duration(10 * time.Millisecond)
	cfg.Restart.BackoffCap = config.Duration(20 * time.Millisecond)
	cfg.Controller.IdleExit = 0
	return cfg
}

// harness is a controller running in-process on a temporary root.
type harness struct {
	t      testing.TB
	root   string
	client *relay.Client
	stop   func()
}

func startHarness(t testing.TB, root string, cfg config.Config) *harness {
	t.Helper()
	return startHarnessWith(t, Options{Root: root, Config: cfg})
}

// startHarnessWith starts a controller with opts (Self, Lang and Ready
// are the harness's).
func startHarnessWith(t testing.TB, opts Options) *harness {
	t.Helper()
	root := opts.Root
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	opts.Self, opts.Lang, opts.Ready = "/nonexistent/daokit", "en", func(string) { close(ready) }
	go func() {
		done <- Run(ctx, opts)
	}()
	return connectHarness(t, root, ready, done, cancel)
}

// connectHarness waits until the controller started on root is ready
// (or failed: done), dials it, and returns the harness whose stop closes
// the client, cancels the controller and waits for it.
func connectHarness(t testing.TB, root string, ready <-chan struct{}, done <-chan error, cancel context.CancelFunc) *harness {
	t.Helper()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("controller did not start: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("controller did not get ready within 10s")
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer dcancel()
	client, err := relay.Dial(dctx, root, relay.DefaultClientConfig())
	if err != nil {
		cancel()
		<-done
		t.Fatalf("dial: %v", err)
	}
	h := &harness{t: t, root: root, client: client}
	stopped := false
	h.stop = func() {
		if stopped {
			return
		}
		stopped = true
		client.Close()
		cancel()
		// Bounded: a controller that never stops (a test that failed
		// waiting on its own state loop, say) fails its own test, with every goroutine
		// shown, rather than the whole package at its timeout, which
		// hides the first failure.
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("controller returned %v", err)
			}
		case <-time.After(stopPatience):
			buf := make([]byte, 1<<20)
			t.Errorf("controller did not stop within %v of its cancel\n%s", stopPatience, buf[:runtime.Stack(buf, true)])
		}
	}
	t.Cleanup(h.stop)
	return h
}

// stopPatience bounds how long a harness waits for its controller to
// stop.
const stopPatience = time.Minute

// events reads the whole log (test ledgers are small).
func (h *harness) events() []ledger.Event {
	h.t.Helper()
	tail, err := ledger.TailEvents(ledger.Layout{Root: h.root}.Events(), 1<<20)
	if err != nil {
		h.t.Fatalf("read events: %v", err)
	}
	return tail.Events
}

func op(e ledger.Event) string { return e.Payload.String("operation") }

// waitFor polls the log until an event matches, failing after a deadline.
func (h *harness) waitFor(what string, match func(ledger.Event) bool) ledger.Event {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, e := range h.events() {
			if match(e) {
				return e
			}
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	h.t.Fatalf("no %s event within 20s; log has %d events", what, len(h.events()))
	return ledger.Event{}
}

func (h *harness) finished(taskID string) ledger.Event {
	return h.waitFor("RUN_FINISHED", func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == opRunFinished })
}

func (h *harness) forward(text string) relay.Ack {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ack, err := h.client.Forward(ctx, text)
	if err != nil {
		h.t.Fatalf("forward: %v", err)
	}
	return ack
}

func count(events []ledger.Event, pred func(ledger.Event) bool) int {
	n := 0
	for _, e := range events {
		if pred(e) {
			n++
		}
	}
	return n
}

func TestInstructionRunsToDone(t *testing.T) {
	t.Parallel()
	h := startHarness(t, t.TempDir(), shellConfig(`read line; echo "reading $line"; echo editing; echo "tests pass" >&2`))
	ack := h.forward("add a --json flag")
	if ack.TaskID != taskIDFor(ackID(t, h, ack)) || ack.ActiveLane != "worker" || ack.ActiveStep != "S1" || ack.NextAction != nextDispatch {
		t.Fatalf("ack %+v", ack)
	}
	end := h.finished(ack.TaskID)
	if got := end.Payload.String("status"); got != ledger.StatusDone {
		t.Fatalf("run ended %s, want DONE", got)
	}
	events := h.events()
	for _, want := range []string{ledger.EventStepStarted, ledger.EventStepCompleted, ledger.EventAcceptancePassed} {
		if count(events, func(e ledger.Event) bool { return e.TaskID == ack.TaskID && e.EventType == want }) != 1 {
			t.Errorf("want exactly one %s", want)
		}
	}
	var lines []string
	for _, e := range events {
		if op(e) == opWorkerOutput {
			raw, _ := e.Payload.Get("lines")
			lines = append(lines, string(raw))
		}
	}
	if got := strings.Join(lines, ""); !strings.Contains(got, "reading add a --json flag") || !strings.Contains(got, "tests pass") {
		t.Errorf("worker output not in the log: %s", got)
	}
	var states []string
	for _, e := range events {
		if e.TaskID == ack.TaskID && op(e) == opRunState {
			states = append(states, e.Payload.String("to"))
		}
	}
	if want := "waiting requesting generating persisting completed"; strings.Join(states, " ") != want {
		t.Errorf("run states %v, want %s", states, want)
	}
	for _, e := range events {
		if err := e.Validate(); err != nil {
			t.Errorf("event %s does not validate: %v", e.EventType, err)
		}
	}
	snap := ledger.LoadSnapshot(h.root)
	if !snap.Pipeline.OK() || snap.Pipeline.Value.Status != ledger.StatusDone || snap.Pipeline.Value.TaskID != ack.TaskID {
		t.Errorf("pipeline %+v err %v", snap.Pipeline.Value.Status, snap.Pipeline.Err)
	}
	for _, l := range snap.Leases.Value.Leases {
		if l.Status == ledger.LeaseActive && l.TaskID != standingTask {
			t.Errorf("lease %s/%s still ACTIVE after the run", l.Lane, l.StepID)
		}
	}
	out, err := os.ReadFile(filepath.Join(h.root, "artifacts", ack.TaskID, ack.RunID, "S1", "stdout.log"))
	if err != nil || !strings.Contains(string(out), "editing") {
		t.Errorf("artifact stdout.log: %q, %v", out, err)
	}
}

// ackID finds the message id of an ack through its event.
func ackID(t *testing.T, h *harness, ack relay.Ack) string {
	t.Helper()
	for _, e := range h.events() {
		if e.EventID == ack.EventID {
			return e.Payload.String("message_id")
		}
	}
	t.Fatalf("no event %s", ack.EventID)
	return ""
}

func TestResendIsIdempotentAcrossARestart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig(`echo ok`)
	h := startHarness(t, root, cfg)
	first := relaytest.SendInstruction(t, h.client, "msg-42", "do it", 5*time.Second)
	again := relaytest.SendInstruction(t, h.client, "msg-42", "do it", 5*time.Second)
	if first.Duplicate || !again.Duplicate || again.TaskID != first.TaskID || again.EventID != first.EventID {
		t.Fatalf("first %+v, again %+v", first, again)
	}
	h.finished(first.TaskID)
	h.stop()

	h2 := startHarness(t, root, cfg)
	after := relaytest.SendInstruction(t, h2.client, "msg-42", "do it", 5*time.Second)
	if !after.Duplicate || after.TaskID != first.TaskID {
		t.Fatalf("after restart: %+v", after)
	}
	events := h2.events()
	if n := count(events, func(e ledger.Event) bool { return op(e) == opInstruction }); n != 1 {
		t.Errorf("%d INSTRUCTION_RECEIVED events, want 1", n)
	}
	if n := count(events, func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted }); n != 1 {
		t.Errorf("%d STEP_STARTED events, want 1: the resend started work", n)
	}
}

// workerPID returns the pid of the task's latest worker.
func (h *harness) workerPID(taskID string) int {
	e := h.waitFor("STEP_STARTED", func(e ledger.Event) bool { return e.TaskID == taskID && e.EventType == ledger.EventStepStarted })
	raw, _ := e.Payload.Get("pid")
	pid := 0
	for _, ch := range string(raw) {
		pid = pid*10 + int(ch-'0')
	}
	return pid
}

func groupGone(pid int) bool {
	return errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH)
}

func (h *harness) waitGroupGone(pid int) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !groupGone(pid) {
		if time.Now().After(deadline) {
			h.t.Fatalf("process group %d still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCancelStopsTheWholeWorkerGroup(t *testing.T) {
	t.Parallel()
	h := startHarness(t, t.TempDir(), shellConfig(`echo started; sleep 30 & sleep 30; wait`))
	ack := h.forward("long job")
	pid := h.workerPID(ack.TaskID)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.client.Control(ctx, relay.Control{Kind: relay.ControlCancel}); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	end := h.finished(ack.TaskID)
	if end.Payload.String("status") != ledger.StatusFailed || end.Payload.String("reason_code") != ReasonCancelled {
		t.Fatalf("ended %s/%s", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	h.waitGroupGone(pid)
	if _, err := h.client.Control(ctx, relay.Control{Kind: relay.ControlCancel}); relay.CodeOf(err) != codeNotRunning {
		t.Errorf("second cancel: got %v, want %s", err, codeNotRunning)
	}
}

func TestTimeoutEndsTimedOut(t *testing.T) {
	t.Parallel()
	cfg := shellConfig(`echo started; sleep 30`)
	cfg.Lanes[0].Timeout = config.Duration(300 * time.Millisecond)
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("slow job")
	pid := h.workerPID(ack.TaskID)
	end := h.finished(ack.TaskID)
	if end.Payload.String("reason_code") != ReasonTimeout {
		t.Fatalf("reason %s, want %s", end.Payload.String("reason_code"), ReasonTimeout)
	}
	if n := count(h.events(), func(e ledger.Event) bool { return op(e) == opRunState && e.Payload.String("to") == stateTimedOut }); n != 1 {
		t.Errorf("%d timedOut transitions, want 1", n)
	}
	h.waitGroupGone(pid)
}

func TestFailedStepCanBeRetried(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	flag := filepath.Join(root, "second-try")
	h := startHarness(t, root, shellConfig(`if [ -f `+flag+` ]; then echo fixed; else touch `+flag+`; exit 3; fi`))
	// Exit 3 is restartable; with the default policy the restart passes.
	ack := h.forward("flaky")
	end := h.finished(ack.TaskID)
	if end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("ended %s/%s, want DONE after one restart", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	if n := count(h.events(), func(e ledger.Event) bool { return e.EventType == ledger.EventStepFailed }); n != 1 {
		t.Errorf("%d STEP_FAILED, want 1", n)
	}
}

func TestHungWorkerIsTakenOverThenBlocked(t *testing.T) {
	t.Parallel()
	cfg := shellConfig(`echo hello; exec sleep 60`)
	cfg.Restart.MaxRestarts = 1
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("hang please")
	end := h.finished(ack.TaskID)
	if end.Payload.String("status") != ledger.StatusBlocked || end.Payload.String("reason_code") != ReasonRestartLimit {
		t.Fatalf("ended %s/%s, want BLOCKED/%s", end.Payload.String("status"), end.Payload.String("reason_code"), ReasonRestartLimit)
	}
	events := h.events()
	for _, typ := range []string{ledger.EventHeartbeatWarning, ledger.EventHeartbeatStale, ledger.EventLeaseTakeover} {
		if n := count(events, func(e ledger.Event) bool { return e.TaskID == ack.TaskID && e.EventType == typ }); n != 2 {
			t.Errorf("%d %s events, want 2 (one per silent streak, two attempts)", n, typ)
		}
	}
	if n := count(events, func(e ledger.Event) bool { return op(e) == string(vocab.OpHandoffApplied) }); n != 2 {
		t.Errorf("%d HANDOFF_APPLIED, want 2", n)
	}
	snap := ledger.LoadSnapshot(h.root)
	taken := 0
	for _, l := range snap.Leases.Value.Leases {
		if l.Status == ledger.LeaseTakenOver {
			taken++
		}
		if l.Status == ledger.LeaseActive && l.TaskID != standingTask {
			t.Errorf("lease %s/%s still ACTIVE", l.Lane, l.StepID)
		}
	}
	if taken == 0 {
		t.Errorf("no TAKEN_OVER lease")
	}
	p := snap.Pipeline.Value
	if p.Succession.LastTakeoverAt == "" || heal.Fence(&p, "S1") != 2 {
		t.Errorf("last_takeover_at %q fence %d, want set and 2", p.Succession.LastTakeoverAt, heal.Fence(&p, "S1"))
	}
	if !snap.Heartbeat.OK() {
		t.Fatalf("heartbeat: %v", snap.Heartbeat.Err)
	}
	if _, err := os.Stat(ledger.Layout{Root: h.root}.Handoff()); err != nil {
		t.Errorf("no handoff package: %v", err)
	}
}

func TestLaneLimitMakesTheSecondRunWait(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	h := startHarness(t, root, shellConfig(`echo waiting for gate; while [ ! -f `+gate+` ]; do sleep 0.05; echo tick; done`))
	first := h.forward("first")
	h.workerPID(first.TaskID)
	second := h.forward("second")
	h.waitFor("queue position", func(e ledger.Event) bool {
		return e.TaskID == second.TaskID && op(e) == opRunState && e.Payload.String("to") == stateWaiting && len(e.Payload.String("lane")) > 0
	})
	if n := count(h.events(), func(e ledger.Event) bool { return e.TaskID == second.TaskID && e.EventType == ledger.EventStepStarted }); n != 0 {
		t.Fatalf("second run started while the lane (limit 1) was busy")
	}
	os.WriteFile(gate, nil, 0o644)
	h.finished(first.TaskID)
	if end := h.finished(second.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("second ended %s", end.Payload.String("status"))
	}
}

func TestStandingLeaseIsHeldRenewedAndReleased(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, shellConfig("echo ok"))
	standing := func() []ledger.Lease {
		var out []ledger.Lease
		for _, l := range ledger.LoadSnapshot(root).Leases.Value.Leases {
			if l.TaskID == standingTask {
				out = append(out, l)
			}
		}
		return out
	}
	first := standing()
	if len(first) != 1 || first[0].Status != ledger.LeaseActive || first[0].PID != os.Getpid() {
		t.Fatalf("standing leases %+v", first)
	}
	deadline := time.Now().Add(10 * time.Second)
	for standing()[0].LastHeartbeatAt == first[0].LastHeartbeatAt {
		if time.Now().After(deadline) {
			t.Fatal("the standing lease was not renewed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.stop()
	if got := standing(); got[0].Status != ledger.LeaseReleased {
		t.Fatalf("after stop: %s, want RELEASED", got[0].Status)
	}
}

func TestInstructionNamingARunAttachesToIt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	h := startHarness(t, root, shellConfig(`while [ ! -f `+gate+` ]; do sleep 0.05; done; echo done`))
	named := func(id string) relay.Ack {
		env := relay.Envelope{ID: id, Type: relay.TypeInstruction, Action: relay.ActionForward}
		env.SetBody(relay.Instruction{Text: "named", TaskID: "DKT-300", RunID: "RUN-A"})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		reply, err := h.client.Send(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		var ack relay.Ack
		reply.DecodeBody(&ack)
		return ack
	}
	first := named("m-1")
	second := named("m-2")
	if first.TaskID != "DKT-300" || first.RunID != "RUN-A" || second.TaskID != "DKT-300" || second.RunID != "RUN-A" {
		t.Fatalf("acks %+v %+v", first, second)
	}
	os.WriteFile(gate, nil, 0o644)
	h.finished("DKT-300")
	events := h.events()
	if n := count(events, func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted }); n != 1 {
		t.Errorf("%d workers started, want 1: the second instruction must attach, not start a run", n)
	}
	if n := count(events, func(e ledger.Event) bool { return op(e) == opRunFinished }); n != 1 {
		t.Errorf("%d RUN_FINISHED, want 1", n)
	}
}
