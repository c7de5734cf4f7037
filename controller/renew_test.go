package controller

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
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
		c.mu.Lock()
		var last time.Time
		for _, l := range c.leases.Leases {
			if c.standing != nil && l.LeaseToken == c.standing.Token() {
				last, _ = ledger.ParseTime(l.LastHeartbeatAt)
			}
		}
		c.mu.Unlock()
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
		return e.TaskID == ack.TaskID && op(e) == OpRunState && e.Payload.String("to") == "restart_scheduled"
	})
	c.mu.Lock()
	held := len(r.successors)
	c.mu.Unlock()
	if held == 0 {
		t.Fatal("the controller holds no lease for the waiting run after the takeover")
	}
	// Five steps of one second, each seen by a pass: 5s > the 3s TTL.
	for range 5 {
		awaitPass(t, c, clock.advance(time.Second))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := clock.now()
	active := 0
	for _, l := range c.leases.Leases {
		if l.TaskID != ack.TaskID || l.PID != c.pid {
			continue
		}
		switch {
		case l.Status == ledger.LeaseActive && !l.Expired(now):
			active++
		case l.Status == ledger.LeaseExpired:
			t.Errorf("lease %s of step %s is EXPIRED while the controller holds it for the waiting run", l.LeaseToken, l.StepID)
		}
	}
	if active != held {
		t.Errorf("%d live leases of the waiting run, want the %d the controller took over", active, held)
	}
}
