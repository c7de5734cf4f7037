package controller

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker/transcript"
)

func (c *Controller) thresholds() heal.Thresholds {
	sec := func(d time.Duration) int { return max(int((d+time.Second-1)/time.Second), 1) }
	h := c.cfg.Heartbeat
	return heal.Thresholds{CheckInterval: sec(h.CheckInterval.Std()), WarningAfter: sec(h.WarningAfter.Std()), StaleAfter: sec(h.StaleAfter.Std())}
}

// checkLiveness is one pass of the detect → decide loop over the running
// workers: renew the leases of live holders, judge silence, report
// WARNING once per silent streak, and stop a worker that is STALE by two
// agreeing signals (no output past the threshold, and no CPU progress).
// The stopped worker's step is then taken over and restarted by the run.
func (c *Controller) checkLiveness() {
	now := c.now()
	th := c.thresholds()
	c.mu.Lock()
	c.escalations = c.escalations[:0]
	c.renewLeasesLocked(now)
	var stop []*run
	for _, r := range c.order {
		if r.proc != nil && c.judgeSilence(r, now, th) {
			stop = append(stop, r)
		}
	}
	c.writeHeartbeatLocked(c.focusLocked(), now, th)
	escalations := c.escalations
	c.mu.Unlock()
	// The escalation is on disk before the worker is stopped for it.
	if len(escalations) > 0 {
		if err := c.journal.append(escalations...); err != nil {
			c.log.Error("append heartbeat events", "err", err)
		}
	}
	c.mu.Lock()
	for _, r := range stop {
		if r.proc != nil {
			r.proc.Stop(transcript.StopHung)
		}
	}
	c.mu.Unlock()
	c.flushDocs()
}

// focusLocked returns the running run the heartbeat reports: the current
// one if it runs, else any that runs, else nil. Called with c.mu held.
func (c *Controller) focusLocked() *run {
	var focus *run
	for _, r := range c.order {
		if r.proc != nil && (focus == nil || r == c.current) {
			focus = r
		}
	}
	return focus
}

// judgeSilence applies the thresholds to one running worker and reports
// whether it must be stopped as hung. Called with c.mu held.
func (c *Controller) judgeSilence(r *run, now time.Time, th heal.Thresholds) (hung bool) {
	proc := r.proc
	last := proc.LastActivity()
	health := heal.Evaluate(now, th, heal.Signals{Active: true, Implicit: last})
	progressing := r.cpu.progressed(proc.PID())
	p := r.pipeline
	streak := ledger.FormatTime(last)
	switch {
	case health.Status == heal.HealthStale && !progressing && !r.hung:
		r.hung = true
		if !r.warned {
			// A check that came late (a loaded machine) still reports
			// the streak in order: WARNING, then STALE.
			r.warned = true
			c.escalate(r, ledger.EventHeartbeatWarning, heal.Health{Status: heal.HealthWarning, ReasonCode: heal.ReasonCode(th.WarningAfter),
				Silence: health.Silence, SignalAt: health.SignalAt}, "heartbeat-warning:"+p.TaskID+":"+p.RunID+":"+p.CurrentStep+":"+streak)
		}
		c.escalate(r, ledger.EventHeartbeatStale, health, "heartbeat-stale:"+p.TaskID+":"+p.RunID+":"+p.CurrentStep+":"+streak)
		c.log.Warn("worker stale; stopping it", "task_id", p.TaskID, "step", p.CurrentStep, "pid", proc.PID(), "silence_s", health.Silence)
		return true
	case health.Status == heal.HealthWarning && !r.warned:
		r.warned = true
		c.escalate(r, ledger.EventHeartbeatWarning, health, "heartbeat-warning:"+p.TaskID+":"+p.RunID+":"+p.CurrentStep+":"+streak)
	case health.Status == heal.HealthActive:
		r.warned = false
	}
	return false
}

// escalate queues a heartbeat event, once per silent streak (its dedup key
// names the streak's last signal). Called with c.mu held; checkLiveness
// appends the queue after unlocking.
func (c *Controller) escalate(r *run, eventType string, h heal.Health, dedup string) {
	p := r.pipeline
	// The decision weighs the run's controller lease as the register has
	// it now (the Python cycle's precedence), not an assumed valid one.
	decision := heal.Decide(persistedStatus(h.Status), heal.CheckControllerLease(&p, &c.leases, c.now()))
	e := c.events.typed(p.TaskID, p.RunID, p.CurrentStep, eventType, ledger.SeverityWarn,
		"reason_code", h.ReasonCode, "silence_seconds", h.Silence, "effective_signal_at", ledger.FormatTime(h.SignalAt),
		"decision_action", decision.Action, "decision_reason_code", decision.ReasonCode)
	e.DedupKey = dedup
	c.escalations = append(c.escalations, e)
	at := e.Timestamp
	c.hb.LastEscalationAt = &at
}

// persistedStatus maps the evaluator's word to the ledger's: ACTIVE is
// stored as RUNNING.
func persistedStatus(health string) string {
	if health == heal.HealthActive {
		return ledger.HeartbeatRunning
	}
	return health
}

// renewLeasesLocked extends the leases of holders that are alive: the
// controller's own, and each worker whose process still exists. A renewal
// that fails is acted on, never dropped: the lease is registered afresh
// for the same holder and LEASE_RENEW_FAILED says why, so that the
// register never keeps an ACTIVE record whose expiry passes while its
// holder lives (a successor would take that for a dead holder).
func (c *Controller) renewLeasesLocked(now time.Time) {
	held := []*heal.Held{c.standing}
	for _, r := range c.order {
		if r.proc != nil {
			held = append(held, r.lease, r.ctlLease)
		}
	}
	changed := false
	for _, h := range held {
		if h == nil {
			continue
		}
		changed = true
		err := h.Renew(&c.leases, now)
		if err == nil {
			continue
		}
		old, rerr := h.Reacquire(&c.leases, now)
		if rerr != nil {
			c.log.Error("re-register a lease after a failed renewal", "token", h.Token(), "err", rerr)
			continue
		}
		c.log.Warn("lease renewal failed; registered afresh", "token", old, "err", err)
		code := ""
		if le, ok := err.(*heal.LeaseError); ok {
			code = le.Code
		}
		c.escalations = append(c.escalations, c.events.system(globalID, globalID, "", ledger.SeverityWarn, OpLeaseRenewFailed,
			"reason_code", code, "error", err.Error(), "token", old, "new_token", h.Token()))
	}
	// Leases nobody renews any more (a holder gone without releasing)
	// become EXPIRED once overdue, so that the register says so; the live
	// ones were renewed above.
	if len(heal.ExpireOverdue(&c.leases, now)) > 0 {
		changed = true
	}
	if changed {
		c.writeLeasesLocked()
	}
}

// writeHeartbeatLocked records the focus worker's liveness (or IDLE) in
// heartbeat_status.json.
func (c *Controller) writeHeartbeatLocked(focus *run, now time.Time, th heal.Thresholds) {
	hb := c.hb
	hb.WarningAfterSeconds, hb.StaleAfterSeconds = th.WarningAfter, th.StaleAfter
	if hb.LastEscalationAt == nil {
		none := ""
		hb.LastEscalationAt = &none
	}
	if focus == nil {
		if c.current != nil && c.current.final == ledger.StatusBlocked {
			hb.Status, hb.ReasonCode = ledger.HeartbeatBlocked, heal.ReasonRestartLimit
		} else {
			hb.Status, hb.ReasonCode = ledger.HeartbeatIdle, ""
		}
		if hb.Status == c.hb.Status && c.hb.WarningAfterSeconds == th.WarningAfter {
			return // nothing new to say
		}
	} else {
		h := heal.Evaluate(now, th, heal.Signals{Active: true, Implicit: focus.proc.LastActivity()})
		hb.LastHeartbeatAt = ledger.FormatTime(h.SignalAt)
		hb.ReasonCode = h.ReasonCode
		hb.Status = persistedStatus(h.Status)
	}
	c.hb = hb
	c.dirty |= docHeartbeat
}

// cpuWatch remembers a process's CPU time between checks, the second
// signal of staleness: a worker that computes without printing is busy,
// not hung.
type cpuWatch struct {
	pid   int
	ticks int64
}

// progressed reports whether pid used CPU since the last call. A process
// whose stat cannot be read counts as not progressing.
func (w *cpuWatch) progressed(pid int) bool {
	ticks, ok := cpuTicks(pid)
	if !ok {
		return false
	}
	moved := w.pid == pid && ticks > w.ticks
	w.pid, w.ticks = pid, ticks
	return moved
}

// cpuTicks reads utime+stime of pid and of its waited-for children from
// /proc/<pid>/stat.
func cpuTicks(pid int) (int64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name may contain spaces and parentheses: fields start
	// after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	// After ')' field 0 is state (stat field 3); utime..cstime are stat
	// fields 14..17, i.e. indexes 11..14 here.
	if len(fields) < 15 {
		return 0, false
	}
	var total int64
	for _, f := range fields[11:15] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, false
		}
		total += n
	}
	return total, true
}
