package controller

import (
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/ledger"
)

// skewedClock is a controller clock the test moves forward. Moving it
// moves the monotonic reading too, so the controller sees real elapsed
// time, as across a pause.
type skewedClock struct{ skew atomic.Int64 }

func (s *skewedClock) now() time.Time { return time.Now().Add(time.Duration(s.skew.Load())) }

func (s *skewedClock) advance(d time.Duration) time.Time {
	s.skew.Add(int64(d))
	return s.now()
}

// awaitPass waits until a liveness pass has run at or after at: the
// standing lease, renewed by every pass, was last renewed then.
func awaitPass(t *testing.T, c *Controller, at time.Time) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) { // polling the controller; the condition decides
		var last time.Time
		c.do(func(st *loopState) {
			for _, l := range st.leases.Leases {
				if st.standing != nil && l.LeaseToken == st.standing.Token() {
					last, _ = ledger.ParseTime(l.LastHeartbeatAt)
				}
			}
		})
		if !last.Before(at.Truncate(time.Microsecond)) {
			return
		}
	}
	t.Fatalf("no liveness pass at or after %v within 20s", at)
}

// TestTakenOverLeasesAreRenewedWhileTheRunWaits: the controller takes
// over the step of a stale worker and holds its leases until the next
// attempt starts. While the run waits out a long restart backoff, the
// liveness loop renews them: after more than a TTL they are still
// ACTIVE and unexpired, never quietly EXPIRED while their holder lives.
func TestTakenOverLeasesAreRenewedWhileTheRunWaits(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	clock := &skewedClock{}
	cfg := shellConfig(`echo hello; exec sleep 60`)
	cfg.Heartbeat.CheckInterval = config.Duration(20 * time.Millisecond)
	cfg.Heartbeat.WarningAfter = config.Duration(time.Hour) // the loop judges nothing itself
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Hour)
	cfg.Restart.BackoffBase = config.Duration(time.Hour) // the run waits for the whole test
	cfg.Restart.BackoffCap = config.Duration(time.Hour)
	cfg.Lease.TTL = config.Duration(3 * time.Second)
	c, h := startControllerHarness(t, Options{Root: root, Config: cfg, Now: clock.now})
	ack := h.forward("go silent")
	r, proc := runningWorker(t, c)
	r.post(observation{kind: obsStale, proc: proc, warnReason: "NO_OUTPUT_1H",
		health: heal.Health{Status: heal.HealthStale, ReasonCode: "NO_OUTPUT_2H", Silence: 7200, SignalAt: proc.LastActivity()}})
	h.waitFor("restart_scheduled", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == opRunState && e.Payload.String("to") == "restart_scheduled"
	})
	var held int
	c.do(func(*loopState) { held = len(r.successors) })
	if held == 0 {
		t.Fatal("the controller holds no lease for the waiting run after the takeover")
	}
	// Five steps of one second, each seen by a pass: 5s > the 3s TTL.
	for range 5 {
		awaitPass(t, c, clock.advance(time.Second))
	}
	liveOf := func() (live int) {
		var leases []ledger.Lease
		c.do(func(st *loopState) { leases = slices.Clone(st.leases.Leases) })
		now := clock.now()
		for _, l := range leases {
			if l.TaskID != ack.TaskID || l.PID != c.pid {
				continue
			}
			switch {
			case l.Status == ledger.LeaseActive && !l.Expired(now):
				live++
			case l.Status == ledger.LeaseExpired:
				t.Errorf("lease %s of step %s is EXPIRED while the controller holds it for the waiting run", l.LeaseToken, l.StepID)
			}
		}
		return live
	}
	if live := liveOf(); live != held {
		t.Fatalf("%d live leases of the waiting run, want the %d the controller took over", live, held)
	}

	// A jump past the TTL (the checks stopped that long): the renewals
	// fail as expired and the loop, the only one listening while the run
	// waits, re-registers the leases and reports each under the run.
	clock.advance(2 * 3 * time.Second)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polling the log; the condition decides
		reports := count(h.events(), func(e ledger.Event) bool {
			return op(e) == opLeaseRenewFailed && e.TaskID == ack.TaskID && e.RunID == ack.RunID &&
				e.Payload.String("reason_code") == heal.LeaseIsExpired && e.Payload.String("new_token") != ""
		})
		if reports == held {
			break
		}
		if reports > held || time.Now().After(deadline) {
			t.Fatalf("%d LEASE_RENEW_FAILED of the waiting run after the jump, want %d", reports, held)
		}
	}
	c.do(func(st *loopState) {
		for _, h := range r.successors {
			if l := findLease(st.leases, h.Token()); l.Status != ledger.LeaseActive || l.Expired(clock.now()) {
				t.Errorf("held lease %s is %+v after the jump, want ACTIVE and unexpired", h.Token(), l)
			}
		}
	})
}

// findLease returns the register's record of token (zero if none).
func findLease(reg ledger.Leases, token string) ledger.Lease {
	for _, l := range reg.Leases {
		if l.LeaseToken == token {
			return l
		}
	}
	return ledger.Lease{}
}

// TestExpiredLeasesReachTheRun: the controller's clock moves two TTLs at
// once while a real worker runs (its checks stopped that long, as in a
// pause). Both leases of the attempt fail to renew as expired; the loop
// registers them afresh at once and the run, not the loop, records
// LEASE_RENEW_FAILED for each under its own task, run and step, naming
// the lapsed token and the fresh one it now holds. The run goes on and
// finishes.
func TestExpiredLeasesReachTheRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	flag := root + "/finish"
	clock := &skewedClock{}
	cfg := shellConfig(`echo hello; while [ ! -f ` + flag + ` ]; do sleep 0.05; done; echo done`)
	cfg.Heartbeat.CheckInterval = config.Duration(20 * time.Millisecond)
	cfg.Heartbeat.WarningAfter = config.Duration(time.Hour)
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Hour)
	cfg.Lease.TTL = config.Duration(3 * time.Second)
	c, h := startControllerHarness(t, Options{Root: root, Config: cfg, Now: clock.now})
	ack := h.forward("hold on")
	r, _ := runningWorker(t, c)
	var step string
	c.do(func(*loopState) { step = r.pipeline.CurrentStep })
	oldWorker, oldCtl := leaseTokens(t, c, r)
	lapsed := map[string]string{oldWorker: "worker", oldCtl: "controller"}

	clock.advance(2 * 3 * time.Second)
	reported := map[string]ledger.Event{}
	for old := range lapsed {
		reported[old] = h.waitFor("LEASE_RENEW_FAILED of "+lapsed[old]+"'s lease", func(e ledger.Event) bool {
			return op(e) == opLeaseRenewFailed && e.Payload.String("token") == old
		})
	}
	newWorker, newCtl := leaseTokens(t, c, r)
	held := map[string]bool{newWorker: true, newCtl: true}
	register := map[string]ledger.Lease{}
	c.do(func(st *loopState) {
		for _, l := range st.leases.Leases {
			register[l.LeaseToken] = l
		}
	})
	now := clock.now()
	for old, e := range reported {
		fresh := e.Payload.String("new_token")
		if e.TaskID != ack.TaskID || e.RunID != ack.RunID || e.StepID != step {
			t.Errorf("%s lease reported under %s/%s/%s, want the run's %s/%s/%s", lapsed[old], e.TaskID, e.RunID, e.StepID, ack.TaskID, ack.RunID, step)
		}
		if got := e.Payload.String("reason_code"); got != heal.LeaseIsExpired {
			t.Errorf("%s lease: reason_code %q, want %q", lapsed[old], got, heal.LeaseIsExpired)
		}
		if !held[fresh] {
			t.Errorf("%s lease: new_token %q is not a lease the run holds (%v)", lapsed[old], fresh, held)
		}
		if l := register[fresh]; l.Status != ledger.LeaseActive || l.Expired(now) || l.StepID != step {
			t.Errorf("%s lease: fresh record %+v, want ACTIVE and unexpired for step %s", lapsed[old], l, step)
		}
		if l := register[old]; l.Status != ledger.LeaseExpired {
			t.Errorf("%s lease: lapsed record is %s, want %s", lapsed[old], l.Status, ledger.LeaseExpired)
		}
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Errorf("run ended %s/%s, want DONE", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
}

// TestRenewalFailureKinds: every error a renewal can meet is acted on the
// same way (a fresh lease for the same holder and step) and told apart
// only by the observation it makes: expired when the lease lapsed by the
// holder's clock or the register has it EXPIRED, renew failed when the
// register lost it otherwise.
func TestRenewalFailureKinds(t *testing.T) {
	t.Parallel()
	const ttl = 10 * time.Second
	tests := []struct {
		name string
		lose func(reg *ledger.Leases, token string, now time.Time) time.Time // returns when to renew
		code string
		kind obsKind
	}{
		{"lapsed by the holder's clock", func(_ *ledger.Leases, _ string, now time.Time) time.Time { return now.Add(ttl) },
			heal.LeaseIsExpired, obsExpired},
		{"marked EXPIRED in the register", func(reg *ledger.Leases, _ string, now time.Time) time.Time {
			heal.ExpireOverdue(reg, now.Add(ttl))
			return now.Add(time.Second)
		}, heal.LeaseNotActive, obsExpired},
		{"taken over", func(reg *ledger.Leases, _ string, now time.Time) time.Time {
			if _, err := heal.TakeOver(reg, "T1", "R1", heal.Holder{ThreadID: "other", PID: 2}, ttl, now); err != nil {
				t.Fatal(err)
			}
			return now.Add(time.Second)
		}, heal.LeaseNotActive, obsRenewFailed},
		{"gone from the register", func(reg *ledger.Leases, _ string, now time.Time) time.Time {
			reg.Leases = reg.Leases[:0]
			return now.Add(time.Second)
		}, heal.LeaseNotFound, obsRenewFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := time.Now()
			c := &Controller{log: slog.New(slog.DiscardHandler)}
			// The state the loop would own, driven from the test's
			// goroutine alone.
			st := &loopState{leases: ledger.NewLeases(now)}
			spec := heal.LeaseSpec{Lane: "default-lane", TaskID: "T1", RunID: "R1", StepID: "S1",
				Holder: heal.Holder{ThreadID: "worker-1", PID: 1}, TTL: ttl}
			h, err := heal.Hold(&st.leases, spec, now)
			if err != nil {
				t.Fatal(err)
			}
			old := h.Token()
			at := tt.lose(&st.leases, old, now)
			news, failed := c.renew(st, h, at)
			if !failed || news.code != tt.code || news.kind() != tt.kind {
				t.Fatalf("failed %v code %q kind %d, want failed, code %q kind %d", failed, news.code, news.kind(), tt.code, tt.kind)
			}
			if news.old != old || news.fresh != h.Token() || news.step != "S1" || news.lane != "default-lane" {
				t.Errorf("news %+v, want old %s, fresh %s, step S1, lane default-lane", news, old, h.Token())
			}
			fresh := st.leases.Leases[len(st.leases.Leases)-1]
			if fresh.LeaseToken != news.fresh || fresh.Status != ledger.LeaseActive || fresh.ThreadID != "worker-1" || fresh.StepID != "S1" {
				t.Errorf("fresh record %+v, want ACTIVE for worker-1 on S1", fresh)
			}
			if _, failed := c.renew(st, h, at.Add(time.Second)); failed {
				t.Errorf("the fresh lease failed to renew")
			}
		})
	}
}

// TestDeadWorkersLeaseIsReleasedAtOnce: the worker exits but leaves a
// process of another session holding its output open, so the worker is
// not done for the drain timeout. The loop sees its holder dead: it stops
// renewing the worker's lease and the run releases it while the attempt
// still waits for the output to close; the controller's lease on the
// step stays ACTIVE. The run then finishes as the exit said.
//
// Where the runtime tracks the worker's tree (a cgroup, or the
// subreaper), the leftover dies with the worker's exit instead and
// cannot hold the output: TestWorkersLeftoverDiesWithItsExit.
func TestDeadWorkersLeaseIsReleasedAtOnce(t *testing.T) {
	t.Parallel()
	if tr := proc.Tracking(); tr != "group" {
		t.Skipf("the worker's tree is tracked (%s): no leftover outlives its exit", tr)
	}
	root := t.TempDir()
	flag := root + "/let-go"
	t.Cleanup(func() { _ = os.WriteFile(flag, nil, 0o600) }) // the leftover ends with the test
	// The leader exits once the leftover has left its group (else the
	// group's SIGKILL at the leader's exit would take it too).
	left := root + "/left"
	// The leftover also ends once the test's folder is gone, so that
	// it never outlives the test (the folder is removed right after the
	// cleanup above, perhaps before the leftover looked for the flag).
	// The leader also waits for the test to have read the leases' tokens:
	// once it exits, the loop may release the worker's lease at any pass.
	read := root + "/tokens-read"
	cfg := shellConfig(`echo hello; setsid sh -c 'touch ` + left + `; while [ -d ` + root + ` ] && [ ! -f ` + flag + ` ]; do sleep 0.05; done' &
while [ ! -f ` + left + ` ] || [ ! -f ` + read + ` ]; do sleep 0.01; done; exit 0`)
	cfg.Heartbeat.CheckInterval = config.Duration(20 * time.Millisecond)
	cfg.Heartbeat.WarningAfter = config.Duration(time.Hour)
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Hour)
	c, h := startControllerHarness(t, Options{Root: root, Config: cfg})
	ack := h.forward("exit early")
	r, proc := runningWorker(t, c)
	worker, ctl := leaseTokens(t, c, r)
	if err := os.WriteFile(read, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	status := func(st *loopState, token string) string {
		for _, l := range st.leases.Leases {
			if l.LeaseToken == token {
				return l.Status
			}
		}
		return ""
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) { // polling the controller; the condition decides
		attempt, ws, cs := proc, "", ""
		c.do(func(st *loopState) { attempt, ws, cs = r.proc, status(st, worker), status(st, ctl) })
		if attempt != proc {
			t.Fatalf("the attempt ended with the worker's lease %s, want it released while the worker's output was still open", ws)
		}
		if ws == ledger.LeaseReleased {
			if cs != ledger.LeaseActive {
				t.Errorf("controller's lease on the step is %s while the attempt ends, want %s", cs, ledger.LeaseActive)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker's lease still %s 20s after its process could exit", ws)
		}
	}
	if !proc.Exited() {
		t.Errorf("the worker's lease was released while its process ran")
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Errorf("run ended %s/%s, want DONE", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
}

// leaseTokens returns the tokens of r's worker and controller leases. A
// missing lease fails the test outside the state loop: a test that
// failed inside a request would leave the controller unable to stop.
func leaseTokens(t *testing.T, c *Controller, r *run) (worker, ctl string) {
	t.Helper()
	held := false
	c.do(func(*loopState) {
		if held = r.lease != nil && r.ctlLease != nil; held {
			worker, ctl = r.lease.Token(), r.ctlLease.Token()
		}
	})
	if !held {
		t.Fatal("the running attempt holds no worker or controller lease")
	}
	return worker, ctl
}

// TestWorkersLeftoverDiesWithItsExit: the worker exits leaving a process
// of another session (setsid) in the background that holds its output
// open. Where the runtime tracks the tree, the leftover dies with the
// worker's exit, the attempt ends without waiting out the drain, and the
// run finishes as the exit said.
func TestWorkersLeftoverDiesWithItsExit(t *testing.T) {
	t.Parallel()
	if tr := proc.Tracking(); tr == "group" {
		t.Skip("no cgroup and no subreaper here: TestDeadWorkersLeaseIsReleasedAtOnce covers the untracked leftover")
	}
	root := t.TempDir()
	pidFile := root + "/leftover"
	cfg := shellConfig(`echo hello; setsid sh -c 'echo $$ > ` + pidFile + `.tmp; mv ` + pidFile + `.tmp ` + pidFile + `; exec sleep 600' &
while [ ! -f ` + pidFile + ` ]; do sleep 0.01; done; exit 0`)
	_, h := startControllerHarness(t, Options{Root: root, Config: cfg})
	ack := h.forward("exit early")
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Errorf("run ended %s/%s, want DONE", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for deadline := time.Now().Add(20 * time.Second); processRuns(pid); time.Sleep(5 * time.Millisecond) { // polling /proc; the condition decides
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the worker's leftover %d outlived it", pid)
		}
	}
}

// processRuns reports whether pid runs (a zombie has ended).
func processRuns(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(string(stat[i+1:]), " Z")
}
