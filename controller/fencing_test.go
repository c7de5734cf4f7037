package controller

import (
	"errors"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestAnsweringHolderIsNotFenced: the holder's standing lease has expired
// on disk (its renewals could not be written, or the successor's clock
// is ahead), but it answers on its socket: a successor leaves it alone
// and says why.
func TestAnsweringHolderIsNotFenced(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig("true")
	cfg.Heartbeat.CheckInterval = 1 << 40 // no renewal rewrites the forged file
	h := startHarness(t, root, cfg)
	expireStanding(t, root, os.Getpid())

	store, fenced, err := openFencing(Options{Root: root, Now: time.Now, Logger: slog.New(slog.DiscardHandler)}, time.Second)
	var answering *HolderAnswersError
	if !errors.As(err, &answering) || answering.PID != os.Getpid() || fenced != 0 || store != nil {
		t.Fatalf("openFencing: store %v fenced %d err %v, want a HolderAnswersError", store, fenced, err)
	}
	if !errors.Is(err, ledger.ErrLocked) {
		t.Errorf("%v does not match ErrLocked", err)
	}
	h.forward("still serving")
}

// expireStanding rewrites the register so that pid's standing lease
// expired an hour ago.
func expireStanding(t *testing.T, root string, pid int) {
	t.Helper()
	snap := ledger.LoadSnapshot(root)
	if !snap.Leases.OK() {
		t.Fatal(snap.Leases.Err)
	}
	reg := snap.Leases.Value
	found := false
	for i := range reg.Leases {
		if l := &reg.Leases[i]; l.TaskID == standingTask && l.PID == pid && l.Status == ledger.LeaseActive {
			l.Expiry, found = ledger.FormatTime(time.Now().Add(-time.Hour)), true
		}
	}
	if !found {
		t.Fatal("no standing lease")
	}
	data, err := ledger.MarshalDocument(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ledger.ReplaceFile(ledger.Layout{Root: root}.StateDir(), ledger.LeasesFile, data); err != nil {
		t.Fatal(err)
	}
}

// TestLapsedStandingLeaseIsRegisteredAfresh: the controller's checks stop
// for longer than the lease TTL (its clock moves two TTLs at once). The
// failed renewal is acted on: LEASE_RENEW_FAILED is recorded and the
// register holds a fresh ACTIVE standing lease that has not expired,
// never only an EXPIRED one.
func TestLapsedStandingLeaseIsRegisteredAfresh(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := shellConfig("true")
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	h := startHarnessWith(t, Options{Root: root, Config: cfg, Now: clock})
	offset.Store(int64(2 * leaseTTLOf(cfg)))
	h.waitFor("LEASE_RENEW_FAILED", func(e ledger.Event) bool { return op(e) == opLeaseRenewFailed })
	deadline := time.Now().Add(10 * time.Second)
	for {
		active := 0
		for _, l := range ledger.LoadSnapshot(root).Leases.Value.Leases {
			if l.TaskID == standingTask && l.PID == os.Getpid() && l.Status == ledger.LeaseActive && !l.Expired(clock()) {
				active++
			}
		}
		if active == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d live standing leases after the lapse, want 1", active)
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
}
