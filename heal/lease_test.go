package heal

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

func register(t *testing.T, reg *ledger.Leases, step string, ttl time.Duration, at time.Time) ledger.Lease {
	t.Helper()
	l, err := Register(reg, LeaseSpec{Lane: "default", TaskID: "T", RunID: "R", StepID: step,
		Holder: Holder{ThreadID: "cli-1", PID: 100}, TTL: ttl}, at)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// holdStep is register's lease as its holder keeps it.
func holdStep(t *testing.T, reg *ledger.Leases, step string, ttl time.Duration, at time.Time) *Held {
	t.Helper()
	h, err := Hold(reg, LeaseSpec{Lane: "default", TaskID: "T", RunID: "R", StepID: step,
		Holder: Holder{ThreadID: "cli-1", PID: 100}, TTL: ttl}, at)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRegisterRenewRelease(t *testing.T) {
	t.Parallel()
	reg := ledger.NewLeases(t0)
	h := holdStep(t, &reg, "S1", 10*time.Minute, t0)
	l := reg.Leases[0]
	if l.Lane != "controller" || l.Status != ledger.LeaseActive || l.Expiry != "2026-11-22T01:55:10+00:00" {
		t.Fatalf("registered %+v", l)
	}
	later := t0.Add(5 * time.Minute)
	if err := h.Renew(&reg, later); err != nil {
		t.Fatal(err)
	}
	if got := reg.Leases[0].Expiry; got != "2026-11-22T02:00:10+00:00" {
		t.Errorf("renewed expiry %s", got)
	}
	if err := Release(&reg, l.LeaseToken, later); err != nil {
		t.Fatal(err)
	}
	var le *LeaseError
	if err := h.Renew(&reg, later); !errors.As(err, &le) || le.Code != LeaseNotActive {
		t.Errorf("renew after release: got %v, want %s", err, LeaseNotActive)
	}
	if err := Release(&reg, "lease_nope", later); !errors.As(err, &le) || le.Code != LeaseNotFound {
		t.Errorf("unknown token: got %v", err)
	}
	reg.UpdatedAt = ledger.FormatTime(later)
	if err := reg.Validate(); err != nil {
		t.Errorf("register does not validate: %v", err)
	}
}

func TestRenewAtExpiryIsRefused(t *testing.T) {
	t.Parallel()
	reg := ledger.NewLeases(t0)
	h := holdStep(t, &reg, "S1", time.Minute, t0)
	var le *LeaseError
	if err := h.Renew(&reg, t0.Add(time.Minute)); !errors.As(err, &le) || le.Code != LeaseIsExpired {
		t.Fatalf("renew at expiry: got %v, want expired (expiry is inclusive)", err)
	}
	if reg.Leases[0].Status != ledger.LeaseExpired {
		t.Errorf("status %s, want EXPIRED", reg.Leases[0].Status)
	}
}

func TestRegisterRejectsBadSpecs(t *testing.T) {
	t.Parallel()
	reg := ledger.NewLeases(t0)
	good := LeaseSpec{Lane: "worker", TaskID: "T", RunID: "R", StepID: "S1", Holder: Holder{"th", 5}, TTL: time.Minute}
	for field, mutate := range map[string]func(*LeaseSpec){
		"lane":      func(s *LeaseSpec) { s.Lane = " " },
		"task_id":   func(s *LeaseSpec) { s.TaskID = "" },
		"step_id":   func(s *LeaseSpec) { s.StepID = "" },
		"thread_id": func(s *LeaseSpec) { s.Holder.ThreadID = "" },
		"pid":       func(s *LeaseSpec) { s.Holder.PID = 0 },
		"ttl":       func(s *LeaseSpec) { s.TTL = 500 * time.Millisecond },
	} {
		spec := good
		mutate(&spec)
		var le *LeaseError
		if _, err := Register(&reg, spec, t0); !errors.As(err, &le) || le.Field != field {
			t.Errorf("bad %s: got %v", field, err)
		}
	}
}

func TestTakeOverAdoptsLiveAndFailsExpired(t *testing.T) {
	t.Parallel()
	reg := ledger.NewLeases(t0)
	held := holdStep(t, &reg, "S1", time.Hour, t0)
	live := reg.Leases[0]
	register(t, &reg, "S2", time.Minute, t0)
	at := t0.Add(2 * time.Minute)
	res, err := TakeOver(&reg, "T", "R", Holder{ThreadID: "takeover-9", PID: 9}, 10*time.Minute, at)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.AdoptedSteps(); len(got) != 1 || got[0] != "S1" {
		t.Errorf("adopted %v, want [S1]", got)
	}
	if len(res.FailedSteps) != 1 || res.FailedSteps[0] != "S2" {
		t.Errorf("failed %v, want [S2]", res.FailedSteps)
	}
	if reg.Leases[0].Status != ledger.LeaseTakenOver || reg.Leases[1].Status != ledger.LeaseExpired {
		t.Errorf("old statuses %s %s, want TAKEN_OVER EXPIRED", reg.Leases[0].Status, reg.Leases[1].Status)
	}
	fresh := res.Adopted[0]
	if fresh.LeaseToken == live.LeaseToken || fresh.PID != 9 || fresh.ThreadID != "takeover-9" || fresh.Expiry != "2026-11-22T01:57:10+00:00" {
		t.Errorf("fresh lease %+v", fresh)
	}
	if err := held.Renew(&reg, at); err == nil {
		t.Errorf("the old token still renews after takeover")
	}
	again, _ := TakeOver(&reg, "T", "R", Holder{ThreadID: "x", PID: 10}, 0, at)
	if len(again.Adopted) != 1 || again.Adopted[0].Expiry != fresh.Expiry {
		t.Errorf("ttl 0 must keep the remaining time: %+v", again.Adopted)
	}
}

func TestSyncLifecycle(t *testing.T) {
	t.Parallel()
	p := threeSteps()
	p.TaskID, p.RunID, p.CurrentStep = "T", "R", ""
	reg := ledger.NewLeases(t0)
	l := register(t, &reg, "S1", time.Hour, t0)
	if !SyncLifecycle(&p, l) {
		t.Fatal("no change reported")
	}
	lc := p.RoleLifecycle
	if lc.Get("controller_ownership") != "controller:S1" || lc.Get("lane:controller") != "active_step:S1" ||
		lc.Get("step:S1") != "owned_by_lane:controller" || p.CurrentStep != "S1" {
		t.Errorf("lifecycle %s", mustLine(lc))
	}
	if SyncLifecycle(&p, l) {
		t.Errorf("a second identical sync reported a change")
	}
	_ = Release(&reg, l.LeaseToken, t0)
	SyncLifecycle(&p, reg.Leases[0])
	if p.RoleLifecycle.Get("step:S1") != "lease_released:controller" || p.RoleLifecycle.Get("controller_ownership") != "controller:unassigned" {
		t.Errorf("after release %s", mustLine(p.RoleLifecycle))
	}
	worker, _ := Register(&reg, LeaseSpec{Lane: "lane-2", TaskID: "T", RunID: "R", StepID: "S2", Holder: Holder{"w", 3}, TTL: time.Minute}, t0)
	SyncLifecycle(&p, worker)
	if p.RoleLifecycle.Get("controller_lane") != "controller" {
		t.Errorf("a worker lane overwrote controller_lane: %s", mustLine(p.RoleLifecycle))
	}
}

func mustLine(v any) string {
	b, _ := ledger.MarshalLine(v)
	return string(b)
}

func TestCheckControllerLeaseAndDecide(t *testing.T) {
	t.Parallel()
	p := threeSteps()
	p.TaskID, p.RunID = "T", "R"
	reg := ledger.NewLeases(t0)
	if got := CheckControllerLease(&p, &reg, t0); got != LeaseMissing {
		t.Errorf("empty register: %s", got)
	}
	l := register(t, &reg, "S1", time.Minute, t0)
	if got := CheckControllerLease(&p, &reg, t0); got != LeaseValid {
		t.Errorf("live lease: %s", got)
	}
	if got := CheckControllerLease(&p, &reg, t0.Add(time.Minute)); got != LeaseExpiredCode {
		t.Errorf("at expiry: %s", got)
	}
	_ = Release(&reg, l.LeaseToken, t0)
	if got := CheckControllerLease(&p, &reg, t0); got != LeaseNoneActive {
		t.Errorf("released: %s", got)
	}
	tests := []struct{ hb, lease, action, reason string }{
		{"STALE", LeaseValid, ActionTakeover, "HEARTBEAT_STALE"},
		{" stale ", LeaseExpiredCode, ActionTakeover, "HEARTBEAT_STALE"},
		{"RUNNING", LeaseExpiredCode, ActionTakeover, "INVALID_LEASE_EXPIRED_CONTROLLER_LEASE"},
		{"WARNING", LeaseValid, ActionObserve, "HEARTBEAT_WARNING_OBSERVE_ONLY"},
		{"RUNNING", LeaseValid, ActionObserve, "HEARTBEAT_RUNNING_NO_ACTION"},
		{"bogus", LeaseValid, ActionObserve, "HEARTBEAT_UNKNOWN_NO_ACTION"},
	}
	for _, tt := range tests {
		if got := Decide(tt.hb, tt.lease); got.Action != tt.action || got.ReasonCode != tt.reason {
			t.Errorf("Decide(%q, %s) = %+v, want %s/%s", tt.hb, tt.lease, got, tt.action, tt.reason)
		}
	}
}

func TestPruneFinishedKeepsActiveAndTheNewest(t *testing.T) {
	t.Parallel()
	reg := ledger.NewLeases(t0)
	var tokens []string
	for i := range 6 {
		l := register(t, &reg, fmt.Sprint("S", i), time.Hour, t0)
		tokens = append(tokens, l.LeaseToken)
	}
	for _, tok := range tokens[:5] {
		_ = Release(&reg, tok, t0)
	}
	if n := PruneFinished(&reg, 2); n != 3 {
		t.Fatalf("removed %d, want 3", n)
	}
	var steps []string
	for _, l := range reg.Leases {
		steps = append(steps, l.StepID+"/"+l.Status)
	}
	if got := fmt.Sprint(steps); got != "[S3/RELEASED S4/RELEASED S5/ACTIVE]" {
		t.Errorf("kept %s", got)
	}
	if n := PruneFinished(&reg, 2); n != 0 {
		t.Errorf("second prune removed %d", n)
	}
}
