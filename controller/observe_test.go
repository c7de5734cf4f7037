package controller

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker"
)

// startControllerHarness is startHarnessWith that also returns the
// controller, for tests that act as its liveness loop.
func startControllerHarness(t *testing.T, opts Options) (*Controller, *harness) {
	t.Helper()
	opts.Self, opts.Lang = "/nonexistent/daokit", "en"
	ready := make(chan struct{})
	opts.Ready = func(string) { close(ready) }
	c, err := open(opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// As Run does: the journal and the store are closed before the
		// test hears the controller stopped (and removes its root).
		done <- func() error {
			defer c.close()
			defer c.store.Close()
			defer c.journal.close()
			return c.serve(ctx)
		}()
	}()
	return c, connectHarness(t, opts.Root, ready, done, cancel)
}

// runningWorker waits until the controller's current run has a worker
// and returns both.
func runningWorker(t *testing.T, c *Controller) (*run, *worker.Process) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) { // polling the controller; the condition decides
		var r *run
		var proc *worker.Process
		c.do(func(st *loopState) {
			if r = st.current; r != nil {
				proc = r.proc
			}
		})
		if proc != nil {
			return r, proc
		}
	}
	t.Fatal("no worker running within 20s")
	return nil, nil
}

// TestObservationReachesTheRun plays the liveness loop: observations sent
// to a run whose real worker is silent are handled by the run itself. A
// WARNING is recorded once for its streak, however often it is observed;
// a STALE is recorded after it and the run stops its own worker, which
// ends HUNG and is taken over; the next attempt finishes the run.
func TestObservationReachesTheRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	flag := filepath.Join(root, "second-attempt")
	cfg := shellConfig(`if [ -f ` + flag + ` ]; then echo done; else touch ` + flag + `; echo hello; exec sleep 60; fi`)
	// The loop itself would judge nothing within the test: only the
	// observations the test sends reach the run.
	cfg.Heartbeat.WarningAfter = config.Duration(time.Hour)
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Hour)
	c, h := startControllerHarness(t, Options{Root: root, Config: cfg})
	ack := h.forward("go silent")
	r, proc := runningWorker(t, c)

	signal := proc.LastActivity()
	warning := observation{kind: obsWarning, proc: proc, warnReason: "NO_OUTPUT_1H",
		health: heal.Health{Status: heal.HealthWarning, ReasonCode: "NO_OUTPUT_1H", Silence: 3600, SignalAt: signal}}
	r.post(warning)
	h.waitFor("HEARTBEAT_WARNING", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventHeartbeatWarning
	})
	r.post(warning) // the same streak again: nothing new to report
	stale := warning
	stale.kind, stale.health.Status, stale.health.ReasonCode, stale.health.Silence = obsStale, heal.HealthStale, "NO_OUTPUT_2H", 7200
	r.post(stale)

	end := h.finished(ack.TaskID)
	if got := end.Payload.String("status"); got != ledger.StatusDone {
		t.Fatalf("run ended %s/%s, want DONE after the stale worker was replaced", got, end.Payload.String("reason_code"))
	}
	var order []string
	for _, e := range h.events() {
		switch {
		case e.TaskID != ack.TaskID:
		case e.EventType == ledger.EventHeartbeatWarning, e.EventType == ledger.EventHeartbeatStale:
			order = append(order, e.EventType)
			if e.Payload.String("effective_signal_at") != ledger.FormatTime(signal) {
				t.Errorf("%s names streak %s, want %s", e.EventType, e.Payload.String("effective_signal_at"), ledger.FormatTime(signal))
			}
		case e.EventType == ledger.EventStepFailed:
			order = append(order, e.EventType+":"+e.Payload.String("reason_code"))
		case e.EventType == ledger.EventLeaseTakeover:
			order = append(order, e.EventType+":"+e.Payload.String("reason_code"))
		}
	}
	// The step is taken over as soon as its worker is gone, then judged.
	want := []string{ledger.EventHeartbeatWarning, ledger.EventHeartbeatStale, ledger.EventLeaseTakeover + ":HEARTBEAT_STALE",
		ledger.EventStepFailed + ":" + ReasonHung}
	if !slices.Equal(order, want) {
		t.Errorf("events %v, want %v", order, want)
	}
	h.waitGroupGone(proc.PID())
}

// TestLateCheckWarnsBeforeStaleThroughTheRun drives the whole path with
// the real loop: the controller's clock jumps past the stale threshold
// while a real worker is silent, so the first check that sees it already
// finds it STALE. The run still records its streak in order, WARNING
// then STALE, stops its worker as hung and, with the restart budget
// spent, ends BLOCKED. The lease renewals that the jump made fail are
// acted on (registered afresh, LEASE_RENEW_FAILED).
func TestLateCheckWarnsBeforeStaleThroughTheRun(t *testing.T) {
	t.Parallel()
	var skew atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	cfg := shellConfig(`echo hello; exec sleep 60`)
	cfg.Heartbeat.CheckInterval = config.Duration(20 * time.Millisecond)
	cfg.Heartbeat.WarningAfter = config.Duration(time.Minute)
	cfg.Heartbeat.StaleAfter = config.Duration(2 * time.Minute)
	cfg.Restart.MaxRestarts = 1
	h := startHarnessWith(t, Options{Root: t.TempDir(), Config: cfg, Now: now})
	ack := h.forward("go silent")
	pid := h.workerPID(ack.TaskID)
	skew.Store(int64(3 * time.Minute))

	end := h.finished(ack.TaskID)
	if end.Payload.String("status") != ledger.StatusBlocked || end.Payload.String("reason_code") != ReasonRestartLimit {
		t.Fatalf("ended %s/%s, want BLOCKED/%s", end.Payload.String("status"), end.Payload.String("reason_code"), ReasonRestartLimit)
	}
	var seq []string
	streaks := map[string]string{}
	renewFailed := 0
	for _, e := range h.events() {
		if op(e) == opLeaseRenewFailed && e.Payload.String("new_token") != "" {
			renewFailed++
		}
		if e.TaskID != ack.TaskID || (e.EventType != ledger.EventHeartbeatWarning && e.EventType != ledger.EventHeartbeatStale) {
			continue
		}
		seq = append(seq, e.EventType+":"+e.Payload.String("reason_code"))
		signal := e.Payload.String("effective_signal_at")
		if e.EventType == ledger.EventHeartbeatWarning {
			streaks[signal] = e.EventType
		} else if streaks[signal] != ledger.EventHeartbeatWarning {
			t.Errorf("STALE of streak %s without its WARNING first", signal)
		}
	}
	pair := []string{ledger.EventHeartbeatWarning + ":NO_OUTPUT_1M", ledger.EventHeartbeatStale + ":NO_OUTPUT_2M"}
	if want := append(append([]string{}, pair...), pair...); !slices.Equal(seq, want) {
		t.Errorf("escalations %v, want %v (one pair per attempt)", seq, want)
	}
	if renewFailed == 0 {
		t.Errorf("no LEASE_RENEW_FAILED after a clock jump past the lease TTL")
	}
	h.waitGroupGone(pid)
}

// TestPostCoalesces: the loop's send never blocks, whether the run is
// between attempts (nobody receives) or receiving at the same time. What
// waits is one verdict, the most severe about the newest worker, and
// every lease news in order: a verdict and lease news never replace each
// other, so a pending STALE survives renewal failures and they survive it.
func TestPostCoalesces(t *testing.T) {
	t.Parallel()
	a, b := new(worker.Process), new(worker.Process)
	news := func(kind obsKind, old string) observation {
		return observation{kind: kind, proc: a, lease: leaseNews{old: old}}
	}
	tests := []struct {
		name  string
		ticks int // how often sent is posted while nobody listens
		sent  []observation
		want  []string
	}{
		{"stale is not replaced by a later warning", 1000, []observation{{kind: obsStale, proc: a}, {kind: obsWarning, proc: a}}, []string{"stale/a"}},
		{"warning is replaced by stale", 1000, []observation{{kind: obsWarning, proc: a}, {kind: obsStale, proc: a}}, []string{"stale/a"}},
		{"a newer worker wins", 1000, []observation{{kind: obsStale, proc: a}, {kind: obsWarning, proc: b}}, []string{"warning/b"}},
		{"stale is not replaced by a dead holder", 1000, []observation{{kind: obsStale, proc: a}, {kind: obsHolderDead, proc: a}}, []string{"stale/a"}},
		{"warning is replaced by a dead holder", 1000, []observation{{kind: obsWarning, proc: a}, {kind: obsHolderDead, proc: a}}, []string{"dead/a"}},
		{"stale is not replaced by lease news", 1, []observation{{kind: obsStale, proc: a}, news(obsRenewFailed, "t1"), news(obsExpired, "t2")},
			[]string{"renew_failed/t1", "expired/t2", "stale/a"}},
		{"lease news is not replaced by verdicts", 1, []observation{news(obsExpired, "t1"), {kind: obsWarning, proc: a}, {kind: obsStale, proc: a},
			{kind: obsWarning, proc: a}, news(obsRenewFailed, "t2")}, []string{"expired/t1", "renew_failed/t2", "stale/a"}},
		{"every lease news is kept in order", 3, []observation{news(obsExpired, "t1"), news(obsRenewFailed, "t2")},
			[]string{"expired/t1", "renew_failed/t2", "expired/t1", "renew_failed/t2", "expired/t1", "renew_failed/t2"}},
	}
	name := func(o observation) string {
		switch o.kind {
		case obsWarning, obsHolderDead, obsStale:
			w := map[obsKind]string{obsWarning: "warning", obsHolderDead: "dead", obsStale: "stale"}[o.kind]
			if o.proc == b {
				return w + "/b"
			}
			return w + "/a"
		case obsExpired:
			return "expired/" + o.lease.old
		default:
			return "renew_failed/" + o.lease.old
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{obs: make(chan observations, obsBuffer)}
			for range tt.ticks {
				for _, o := range tt.sent {
					r.post(o)
				}
			}
			var got []string
			for _, o := range <-r.obs {
				got = append(got, name(o))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("waiting: %v, want %v", got, tt.want)
			}
			select {
			case extra := <-r.obs:
				t.Errorf("a second batch waits: %+v", extra)
			default:
			}
		})
	}
}

// TestPostRacesTheRun is for -race: the loop posts while the run takes
// observations and handles them (its own state, no lock); the run ends up
// with the stale news and nothing is lost or blocked.
func TestPostRacesTheRun(t *testing.T) {
	t.Parallel()
	proc := new(worker.Process)
	r := &run{obs: make(chan observations, obsBuffer)}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	sawStale := make(chan struct{})
	wg.Add(1)
	go func() { // the run
		defer wg.Done()
		for {
			select {
			case batch := <-r.obs:
				for _, o := range batch {
					if o.kind == obsStale && !r.hung {
						r.hung = true
						close(sawStale)
					}
				}
			case <-stop:
				return
			}
		}
	}()
	for i := range 10000 { // the loop
		kind := obsWarning
		if i == 5000 {
			kind = obsStale
		}
		r.post(observation{kind: kind, proc: proc})
	}
	// Coalescing keeps a STALE not taken yet over the later WARNINGs, so
	// the run sees it even though no STALE follows.
	select {
	case <-sawStale:
	case <-time.After(10 * time.Second):
		t.Error("the STALE observation was lost among later warnings")
	}
	close(stop)
	wg.Wait()
}

// TestObservationOfAnEarlierAttemptIsIgnored: a run between attempts may
// find an observation about its previous worker waiting; it changes
// nothing for the new one.
func TestObservationOfAnEarlierAttemptIsIgnored(t *testing.T) {
	t.Parallel()
	old, current := new(worker.Process), new(worker.Process)
	r := &run{obs: make(chan observations, obsBuffer)}
	c := &Controller{}
	c.observed(r, current, observations{{kind: obsStale, proc: old}})
	if r.hung || !r.warnedFor.IsZero() {
		t.Errorf("hung %v warnedFor %v after an observation of another worker, want untouched", r.hung, r.warnedFor)
	}
	r.post(observation{kind: obsStale, proc: old})
	c.resetLiveness(r)
	select {
	case o := <-r.obs:
		t.Errorf("observation %+v left for the new attempt", o)
	default:
	}
}

// TestManyRunsEachHandleTheirOwnHang is the race test of the real path:
// four runs on one lane at once, each with a worker that goes silent on
// its first attempt, under a fast loop that judges them all on every
// tick and keeps sending while they stop, are taken over and restart.
// Each run reports its own streak once (WARNING, then STALE), stops only
// its own worker, and finishes on its second attempt.
func TestManyRunsEachHandleTheirOwnHang(t *testing.T) {
	t.Parallel()
	const runs = 4
	root := t.TempDir()
	cfg := shellConfig(`f=` + root + `/tried-$DAOKIT_TASK_ID; if [ -f $f ]; then echo done; else touch $f; echo hello; exec sleep 60; fi`)
	cfg.Lanes[0].Concurrency = runs
	cfg.Heartbeat.CheckInterval = config.Duration(10 * time.Millisecond)
	h := startHarness(t, root, cfg)
	var tasks []string
	for i := range runs {
		tasks = append(tasks, h.forward("go silent "+string(rune('a'+i))).TaskID)
	}
	for _, task := range tasks {
		if end := h.finished(task); end.Payload.String("status") != ledger.StatusDone {
			t.Errorf("%s ended %s/%s, want DONE on its second attempt", task, end.Payload.String("status"), end.Payload.String("reason_code"))
		}
	}
	events := h.events()
	for _, task := range tasks {
		var seq []string
		for _, e := range events {
			if e.TaskID != task {
				continue
			}
			switch e.EventType {
			case ledger.EventHeartbeatWarning, ledger.EventHeartbeatStale, ledger.EventLeaseTakeover:
				seq = append(seq, e.EventType)
			case ledger.EventStepFailed:
				seq = append(seq, e.EventType+":"+e.Payload.String("reason_code"))
			}
		}
		want := []string{ledger.EventHeartbeatWarning, ledger.EventHeartbeatStale, ledger.EventLeaseTakeover, ledger.EventStepFailed + ":" + ReasonHung}
		if !slices.Equal(seq, want) {
			t.Errorf("%s: %v, want %v", task, seq, want)
		}
	}
}
