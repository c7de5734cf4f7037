package controller

import (
	"errors"
	"strings"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker"
)

func (c *Controller) thresholds() heal.Thresholds {
	sec := func(d time.Duration) int { return max(int((d+time.Second-1)/time.Second), 1) }
	h := c.cfg.Heartbeat
	return heal.Thresholds{CheckInterval: sec(h.CheckInterval.Std()), WarningAfter: sec(h.WarningAfter.Std()), StaleAfter: sec(h.StaleAfter.Std())}
}

// checkLiveness is one pass of the liveness loop: read what other
// writers appended to the log since the last pass (the replay signal,
// see react), renew the leases of live holders (acting on every
// failed renewal), write the heartbeat, and judge each running worker's
// silence. The loop only observes: what
// it sees of a run (a verdict on its worker, the failed renewal of a
// lease it holds) goes to the run as an observation (see post), and the
// run itself records it and stops its worker (see observed). Only the
// loop's goroutine calls it.
func (c *Controller) checkLiveness() {
	// Read outside the state loop (a file read); reacted to before the renewals, so
	// that a step another writer took is not renewed for a pass more.
	foreign := c.replay.read(c.log.Warn)
	now := c.now()
	th := c.thresholds()
	var reports, renewals []ledger.Event
	var watched []watchedRun
	c.do(func(st *loopState) {
		reports = c.react(st, foreign)
		renewals = append(reports, c.renewLeases(st, now)...)
		watched = make([]watchedRun, 0, len(st.order))
		for _, r := range st.order {
			if r.proc != nil {
				watched = append(watched, watchedRun{r: r, proc: r.proc})
			}
		}
		c.writeHeartbeat(st, c.focus(st), now, th)
	})
	if len(renewals) > 0 {
		if err := c.journal.append(renewals...); err != nil {
			c.log.Error("append lease renewal events", "err", err)
		}
	}
	// Judged outside the state loop: reading a worker's CPU time is a file read.
	// A worker whose process exited is not judged for silence: it is not
	// hung, it is gone, and its run hears that instead.
	var verdicts []watchedRun
	for _, w := range watched {
		if w.proc.Exited() {
			w.verdict = observation{kind: obsHolderDead, proc: w.proc}
			verdicts = append(verdicts, w)
		} else if o, ok := judgeSilence(w, now, th); ok {
			w.verdict = o
			verdicts = append(verdicts, w)
		}
	}
	if len(verdicts) > 0 {
		// Posted on the state loop, to the attempt judged only (see post).
		c.do(func(*loopState) {
			for _, w := range verdicts {
				if w.r.proc == w.proc {
					w.r.post(w.verdict)
				}
			}
		})
	}
	c.flushDocs()
}

// focus returns the running run the heartbeat reports: the current
// one if it runs, else any that runs, else nil. Called on the state loop.
func (c *Controller) focus(st *loopState) *run {
	var focus *run
	for _, r := range st.order {
		if r.proc != nil && (focus == nil || r == st.current) {
			focus = r
		}
	}
	return focus
}

// watchedRun is a run whose worker ran when a pass began, and the
// pass's verdict on that worker.
type watchedRun struct {
	r       *run
	proc    *worker.Process
	verdict observation
}

// judgeSilence is heal.JudgeSilence on one running worker (its last
// output, and whether it used CPU since the previous pass), as the
// observation to send its run, if any.
func judgeSilence(w watchedRun, now time.Time, th heal.Thresholds) (observation, bool) {
	verdict, health := heal.JudgeSilence(now, th, w.proc.LastActivity(), w.r.cpu.progressed(w.proc.PID()))
	o := observation{proc: w.proc, health: health, warnReason: heal.ReasonCode(th.WarningAfter)}
	switch verdict {
	case heal.SilenceStale:
		o.kind = obsStale
	case heal.SilenceWarning:
		o.kind = obsWarning
	default:
		return observation{}, false
	}
	return o, true
}

// persistedStatus maps the evaluator's word to the ledger's: ACTIVE is
// stored as RUNNING.
func persistedStatus(health string) string {
	if health == heal.HealthActive {
		return ledger.HeartbeatRunning
	}
	return health
}

// renewLeases extends the leases of holders that are alive: the
// controller's own, each worker whose process has not exited, the
// controller's lease on each running attempt's step, and the leases the controller took over
// for a run that waits for its next attempt. A renewal that fails is
// acted on, never dropped: the lease is registered afresh for the same
// holder at once, so that the register never keeps an ACTIVE record whose
// expiry passes while its holder lives (a successor would take that for
// a dead holder), and the failure is reported as LEASE_RENEW_FAILED. A
// lease of a running attempt is reported by its run, to which it is
// posted as an observation (obsRenewFailed, obsExpired); the standing
// lease (no run owns it) and the leases held for a waiting run (which
// listens to nothing while it waits) are reported by the loop, in the
// events returned for the caller to append after unlocking.
func (c *Controller) renewLeases(st *loopState, now time.Time) (events []ledger.Event) {
	changed := false
	if st.standing != nil {
		changed = true
		if news, failed := c.renew(st, st.standing, now); failed {
			news.step = "" // the standing lease names no step of a run
			events = append(events, c.leaseEvent(globalID, globalID, news))
		}
	}
	for _, r := range st.order {
		for _, h := range r.successors {
			changed = true
			if news, failed := c.renew(st, h, now); failed {
				events = append(events, c.leaseEvent(r.pipeline.TaskID, r.pipeline.RunID, news))
			}
		}
		if r.proc == nil {
			continue
		}
		for _, h := range []*heal.Held{r.lease, r.ctlLease} {
			if h == nil || (h == r.lease && r.proc.Exited()) {
				// A dead worker's lease is not renewed: its run
				// releases it (obsHolderDead), or it expires.
				continue
			}
			changed = true
			if news, failed := c.renew(st, h, now); failed {
				r.post(observation{kind: news.kind(), proc: r.proc, lease: news})
			}
		}
	}
	// Leases nobody renews any more (a holder gone without releasing)
	// become EXPIRED once overdue, so that the register says so; the live
	// ones were renewed above.
	if len(heal.ExpireOverdue(&st.leases, now)) > 0 {
		changed = true
	}
	if changed {
		c.writeLeases(st)
	}
	return events
}

// renew renews h and, when that fails, registers it afresh and
// returns the news of it. Called on the state loop.
func (c *Controller) renew(st *loopState, h *heal.Held, now time.Time) (news leaseNews, failed bool) {
	err := h.Renew(&st.leases, now)
	if err == nil {
		return leaseNews{}, false
	}
	spec := h.Spec()
	news = leaseNews{lane: spec.Lane, step: spec.StepID, err: err.Error(), at: now}
	var le *heal.LeaseError
	if errors.As(err, &le) {
		news.code, news.status = le.Code, le.Status
	}
	old, rerr := h.Reacquire(&st.leases, now)
	if rerr != nil {
		// Only a spec Register refuses fails here, and Hold took the same
		// spec: this is a bug, logged on every pass rather than recorded.
		c.log.Error("re-register a lease after a failed renewal", "token", h.Token(), "renew_err", err, "err", rerr)
		return leaseNews{}, false
	}
	news.old, news.fresh = old, h.Token()
	c.log.Warn("lease renewal failed; registered afresh", "token", old, "new_token", news.fresh, "err", err)
	return news, true
}

// kind is the observation a failed renewal makes: obsExpired when the
// lease lapsed by the holder's clock (heal.LeaseIsExpired) or the
// register already had it EXPIRED, obsRenewFailed when the register lost
// it otherwise (taken over, released, pruned).
func (n leaseNews) kind() obsKind {
	if n.code == heal.LeaseIsExpired || n.status == ledger.LeaseExpired {
		return obsExpired
	}
	return obsRenewFailed
}

// writeHeartbeat records the focus worker's liveness (or IDLE) in
// heartbeat_status.json.
func (c *Controller) writeHeartbeat(st *loopState, focus *run, now time.Time, th heal.Thresholds) {
	hb := st.hb
	hb.WarningAfterSeconds, hb.StaleAfterSeconds = th.WarningAfter, th.StaleAfter
	if hb.LastEscalationAt == nil {
		none := ""
		hb.LastEscalationAt = &none
	}
	if focus == nil {
		if st.current != nil && st.current.final == ledger.StatusBlocked {
			hb.Status, hb.ReasonCode = ledger.HeartbeatBlocked, blockReason(&st.current.pipeline)
		} else {
			hb.Status, hb.ReasonCode = ledger.HeartbeatIdle, ""
		}
		if hb.Status == st.hb.Status && hb.ReasonCode == st.hb.ReasonCode && st.hb.WarningAfterSeconds == th.WarningAfter {
			return // nothing new to say
		}
	} else {
		h := heal.Evaluate(now, th, heal.Signals{Active: true, Implicit: focus.proc.LastActivity()})
		hb.LastHeartbeatAt = ledger.FormatTime(h.SignalAt)
		hb.ReasonCode = h.ReasonCode
		hb.Status = persistedStatus(h.Status)
	}
	st.hb = hb
	st.dirty |= docHeartbeat
}

// blockReason is why a blocked run waits for a person, as finish
// recorded it (see markStepFailed): the loop's last iteration, an
// escalation, the budget or the restart limit each say something
// different to the person. A pipeline that names no reason (written by
// an older daokit) was blocked by the restart limit, the only block
// there was.
func blockReason(p *ledger.PipelineState) string {
	if r := strings.ToUpper(p.RoleLifecycle.Get("route:last_reason")); r != "" {
		return r
	}
	return ReasonRestartLimit
}

// cpuWatch remembers a process's CPU time between checks, the second
// signal of staleness: a worker that computes without printing is busy,
// not hung. Only the liveness loop's goroutine touches it.
type cpuWatch struct {
	pid int
	cpu time.Duration
}

// progressed reports whether pid used CPU since the last call. A process
// whose stat cannot be read counts as not progressing.
func (w *cpuWatch) progressed(pid int) bool {
	cpu, ok := proc.CPUTime(pid)
	if !ok {
		return false
	}
	moved := w.pid == pid && cpu > w.cpu
	w.pid, w.cpu = pid, cpu
	return moved
}
