package heal

import (
	"errors"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

func hold(t *testing.T, reg *ledger.Leases, ttl time.Duration, at time.Time) *Held {
	t.Helper()
	h, err := Hold(reg, LeaseSpec{Lane: "controller", TaskID: "controller", RunID: "generation-1", StepID: "controller",
		Holder: Holder{ThreadID: "controller-1", PID: 100}, TTL: ttl}, at)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHeldIgnoresTheWallClock: the register's expiry says the lease has
// passed (as after a jump of the wall clock), but the holder renewed it
// within its TTL by its own clock, so the renewal succeeds and moves the
// expiry forward.
func TestHeldIgnoresTheWallClock(t *testing.T) {
	t.Parallel()
	now := time.Now()
	reg := ledger.NewLeases(now)
	h := hold(t, &reg, 10*time.Second, now)
	reg.Leases[0].Expiry = ledger.FormatTime(now.Add(-time.Hour))
	later := now.Add(5 * time.Second)
	if got := h.Remaining(later); got != 5*time.Second {
		t.Errorf("remaining %v, want 5s", got)
	}
	if err := h.Renew(&reg, later); err != nil {
		t.Fatalf("renew: %v", err)
	}
	if l := reg.Leases[0]; l.Status != ledger.LeaseActive || l.Expired(later.Add(9*time.Second)) {
		t.Errorf("after renewal %+v, want ACTIVE until %v", l, later.Add(10*time.Second))
	}
}

// TestHeldLapsesByElapsedTime: a holder whose renewals stopped for a
// whole TTL has lost its lease; Reacquire registers a fresh one and the
// old record is not left ACTIVE.
func TestHeldLapsesByElapsedTime(t *testing.T) {
	t.Parallel()
	now := time.Now()
	reg := ledger.NewLeases(now)
	h := hold(t, &reg, 10*time.Second, now)
	first := h.Token()
	late := now.Add(11 * time.Second)
	if h.Remaining(late) > 0 {
		t.Errorf("remaining %v after 11s of a 10s lease", h.Remaining(late))
	}
	var le *LeaseError
	if err := h.Renew(&reg, late); !errors.As(err, &le) || le.Code != LeaseIsExpired {
		t.Fatalf("renew after the TTL: %v, want %s", err, LeaseIsExpired)
	}
	old, err := h.Reacquire(&reg, late)
	if err != nil || old != first || h.Token() == first {
		t.Fatalf("reacquire: old %s err %v token %s", old, err, h.Token())
	}
	active := 0
	for _, l := range reg.Leases {
		if l.Status == ledger.LeaseActive {
			active++
			if l.LeaseToken != h.Token() || l.Expired(late) {
				t.Errorf("active lease %+v", l)
			}
		}
	}
	if active != 1 {
		t.Errorf("%d ACTIVE leases, want 1", active)
	}
	if err := h.Renew(&reg, late.Add(time.Second)); err != nil {
		t.Errorf("renew of the fresh lease: %v", err)
	}
	if err := h.Release(&reg, late); err != nil {
		t.Errorf("release: %v", err)
	}
}

// TestHeldTakenOverIsNotRenewed: a lease that someone took over cannot be
// renewed by its old holder.
func TestHeldTakenOverIsNotRenewed(t *testing.T) {
	t.Parallel()
	now := time.Now()
	reg := ledger.NewLeases(now)
	h := hold(t, &reg, 10*time.Second, now)
	if _, err := TakeOver(&reg, "controller", "generation-1", Holder{ThreadID: "next", PID: 200}, time.Minute, now); err != nil {
		t.Fatal(err)
	}
	var le *LeaseError
	if err := h.Renew(&reg, now.Add(time.Second)); !errors.As(err, &le) || le.Code != LeaseNotActive {
		t.Errorf("renew after a takeover: %v, want %s", err, LeaseNotActive)
	}
}

// TestAdoptedLeaseIsHeldBySuccessor: the leases TakeOver issues to a
// successor are renewed by it like its own, past the TTL they started
// with, and re-registered for the same lane, step and holder once they
// lapse.
func TestAdoptedLeaseIsHeldBySuccessor(t *testing.T) {
	t.Parallel()
	now := time.Now()
	reg := ledger.NewLeases(now)
	hold(t, &reg, 10*time.Second, now)
	successor := Holder{ThreadID: "takeover-2", PID: 200}
	res, err := TakeOver(&reg, "controller", "generation-1", successor, 10*time.Second, now)
	if err != nil || len(res.Adopted) != 1 {
		t.Fatalf("take over: %+v, %v", res, err)
	}
	h := Adopt(res.Adopted[0], 10*time.Second, now)
	for i := 1; i <= 4; i++ { // 4 renewals 6s apart: 24s, past the first TTL
		at := now.Add(time.Duration(i) * 6 * time.Second)
		if err := h.Renew(&reg, at); err != nil {
			t.Fatalf("renewal %d at +%ds: %v, want nil", i, i*6, err)
		}
	}
	var le *LeaseError
	late := now.Add(40 * time.Second) // 16s after the last renewal
	if err := h.Renew(&reg, late); !errors.As(err, &le) || le.Code != LeaseIsExpired {
		t.Fatalf("renew after the TTL: %v, want %s", err, LeaseIsExpired)
	}
	if _, err := h.Reacquire(&reg, late); err != nil {
		t.Fatalf("reacquire: %v", err)
	}
	l := reg.Leases[len(reg.Leases)-1]
	if l.LeaseToken != h.Token() || l.ThreadID != successor.ThreadID || l.PID != successor.PID ||
		l.StepID != "controller" || l.Status != ledger.LeaseActive {
		t.Errorf("re-registered %+v, want an ACTIVE lease of %+v for step controller", l, successor)
	}
}
