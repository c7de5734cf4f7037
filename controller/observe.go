package controller

import (
	"slices"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// obsKind is what the liveness loop saw of a run's worker or of a lease
// the run holds.
type obsKind int

const (
	// obsWarning: the worker has been silent past heartbeat.warning_after.
	obsWarning obsKind = iota + 1
	// obsHolderDead: the worker's process has exited, but the worker is
	// not done yet (its output and files are still being closed). It
	// covers a WARNING of the same worker: a dead worker is not silent.
	obsHolderDead
	// obsStale: silent past heartbeat.stale_after and no CPU progress
	// since the previous check, two agreeing signals that it is hung.
	// It covers the other verdicts on the same worker and is never
	// replaced by them: the run must stop a hung worker and have its
	// step taken over, even if it exited meanwhile.
	obsStale
	// obsRenewFailed: the register no longer had one of the run's leases
	// ACTIVE (taken over, released, pruned), so it could not be renewed;
	// the loop registered it afresh.
	obsRenewFailed
	// obsExpired: one of the run's leases expired while the run held it
	// (the checks stopped for a whole TTL: a paused controller, a jump of
	// its clock; or the register marked it EXPIRED); the loop registered
	// it afresh.
	obsExpired
	// obsTakenOver: another writer took over the step the run's worker
	// is on (the replay signal, see react): the loop no longer
	// renews the run's leases, and the run stops its worker.
	obsTakenOver
)

// verdict reports whether k judges a worker (its silence or its death)
// rather than a lease. Verdicts are
// level-triggered: the loop judges every running worker on every tick
// and sends again while the condition lasts, so a run never depends on
// one send arriving (etcd's lessor reports expiries the same way). The
// other kinds are news of a lease, sent once for each failed renewal.
func (k obsKind) verdict() bool { return k == obsWarning || k == obsHolderDead || k == obsStale }

// observation is one thing the liveness loop saw about one run, sent to
// that run (see post).
type observation struct {
	kind obsKind
	// proc is the worker of the attempt the loop saw: a run that has
	// moved on to another attempt ignores verdicts about an earlier one.
	proc *worker.Process
	// health is a verdict's evaluation, with the silence and its last
	// signal (the start of the silent streak, which names it).
	health heal.Health
	// warnReason is the reason code a WARNING carries (the warning
	// threshold), for the WARNING a STALE must be preceded by.
	warnReason string
	// lease is the news of a lease (obsRenewFailed, obsExpired).
	lease leaseNews
	// takeover is another writer's takeover (obsTakenOver).
	takeover takeoverNews
}

// leaseNews is a failed renewal of a lease a run holds, and what the
// loop did about it.
type leaseNews struct {
	lane, step string
	// old is the token that could not be renewed; fresh the one
	// registered in its place.
	old, fresh string
	// code is the renewal's heal lease error code, status the register's
	// status of the old lease when it was not ACTIVE, err the error.
	code, status, err string
	at                time.Time
}

// observations is what waits for a run: at most one verdict, and every
// lease news not yet taken, in the order seen.
type observations []observation

// obsBuffer is the capacity of a run's observation channel. One is
// enough: the loop coalesces into what waits (see post).
const obsBuffer = 1

// post hands o to r without ever blocking the liveness loop: a run that
// is slow, or between attempts and not listening, must not stall the
// checks of the others. When r has not taken what waits yet, o is
// coalesced into it (see coalesce). The loop posts on the state loop
// and only while r.proc is the attempt's worker, so that once the run
// has cleared r.proc (on the state loop) nothing more arrives for the attempt and
// settleObservations finds all of it.
func (r *run) post(o observation) {
	batch := observations{o}
	for {
		select {
		case r.obs <- batch:
			return
		default:
		}
		select {
		case waiting := <-r.obs:
			batch = coalesce(waiting, batch)
		default:
			// The run took it meanwhile: the slot is free again.
		}
	}
}

// coalesce merges what waits with newer observations. Lease news happens
// once, so all of it is kept, in order. Of the verdicts only one is kept,
// since the next tick judges again: about the same worker the more severe
// (a STALE not yet handled is never replaced by a WARNING), about another
// worker the newer (the earlier attempt is over). A verdict and lease
// news never replace each other: a pending STALE survives any number of
// renewal failures, and they survive it.
func coalesce(waiting, newer observations) observations {
	out := make(observations, 0, len(waiting)+len(newer))
	var verdict *observation
	for _, o := range slices.Concat(waiting, newer) {
		switch {
		case !o.kind.verdict():
			out = append(out, o)
		case verdict == nil || verdict.proc != o.proc || o.kind >= verdict.kind:
			verdict = &o
		}
	}
	if verdict != nil {
		out = append(out, *verdict)
	}
	return out
}

// settleObservations takes whatever waits in r's channel once r's
// attempt has no worker any more (r.proc cleared): lease news is still
// recorded (the renewal did fail), verdicts about a worker that is gone
// are dropped. Run goroutine only.
func (c *Controller) settleObservations(r *run) {
	for {
		select {
		case batch := <-r.obs:
			for _, o := range batch {
				switch {
				case o.kind == obsTakenOver:
					// The worker ended before it heard: nothing to stop,
					// the takeover is still recorded.
					c.recordTakeover(r, o.takeover, false)
				case !o.kind.verdict():
					c.leaseRenewFailed(r, o)
				}
			}
		default:
			return
		}
	}
}

// observed is the run's handling of what the loop saw, on the run's own
// goroutine, while it waits for its worker proc: lease news is recorded
// (see leaseRenewFailed), and a verdict about proc is acted on (see
// judged).
func (c *Controller) observed(r *run, proc *worker.Process, batch observations) {
	for _, o := range batch {
		switch {
		case o.kind.verdict():
			c.judged(r, proc, o)
		case o.kind == obsTakenOver:
			c.takeoverSeen(r, proc, o)
		default:
			c.leaseRenewFailed(r, o)
		}
	}
}

// leaseRenewFailed records a failed renewal of one of r's leases under
// r's task, run and step: LEASE_RENEW_FAILED with the old and the fresh
// token. The loop already registered the lease afresh (on the state loop, so
// that the register never keeps an ACTIVE record nobody renews); the run
// reports it. Run goroutine only.
func (c *Controller) leaseRenewFailed(r *run, o observation) {
	var taskID, runID string
	c.do(func(*loopState) {
		taskID, runID = r.pipeline.TaskID, r.pipeline.RunID
	})
	c.record(c.leaseEvent(taskID, runID, o.lease))
}

// leaseEvent is the LEASE_RENEW_FAILED event of news.
func (c *Controller) leaseEvent(taskID, runID string, news leaseNews) ledger.Event {
	return c.events.system(taskID, runID, news.step, ledger.SeverityWarn, opLeaseRenewFailed,
		"reason_code", news.code, "error", news.err, "token", news.old, "new_token", news.fresh,
		"lane", news.lane, "lease_status", news.status, "failed_at", ledger.FormatTime(news.at))
}

// judged is the run's handling of a verdict about its worker proc. For
// a holder found dead it releases the worker's lease at once, so that
// the register does not show a dead process holding the step while the
// worker's output is closed; the controller's lease stays until the
// attempt ends. For silence it reports a silent streak once as
// HEARTBEAT_WARNING and, for STALE, records HEARTBEAT_STALE (preceded by
// the streak's WARNING when the checks came too late to see it) and then
// stops its worker as hung. The escalation is on disk before the worker
// is stopped for it. hung and warnedFor are the run goroutine's own.
func (c *Controller) judged(r *run, proc *worker.Process, o observation) {
	if o.proc != proc || r.hung {
		return // about an earlier attempt, or already being stopped
	}
	streak := o.health.SignalAt
	warned := r.warnedFor.Equal(streak)
	switch o.kind {
	case obsHolderDead:
		c.do(func(st *loopState) {
			if h := r.lease; h != nil {
				if err := h.Release(&st.leases, c.now()); err != nil {
					c.log.Warn("release a dead worker's lease", "token", h.Token(), "err", err)
				}
				r.lease = nil
				c.writeLeases(st)
			}
		})
		c.writeSoon()
	case obsWarning:
		if !warned {
			r.warnedFor = streak
			c.escalate(r, ledger.EventHeartbeatWarning, o.health, "heartbeat-warning:")
		}
	case obsStale:
		r.hung = true
		if !warned {
			// A check that came late (a loaded machine) still reports
			// the streak in order: WARNING, then STALE.
			r.warnedFor = streak
			c.escalate(r, ledger.EventHeartbeatWarning, heal.Health{Status: heal.HealthWarning, ReasonCode: o.warnReason,
				Silence: o.health.Silence, SignalAt: streak}, "heartbeat-warning:")
		}
		c.escalate(r, ledger.EventHeartbeatStale, o.health, "heartbeat-stale:")
		var taskID, step string
		c.do(func(*loopState) {
			taskID, step = r.pipeline.TaskID, r.pipeline.CurrentStep
		})
		c.log.Warn("worker stale; stopping it", "task_id", taskID, "step", step, "pid", proc.PID(), "silence_s", o.health.Silence)
		proc.Stop(transcript.StopHung)
	}
}

// escalate records a heartbeat event for r's silent streak, once per
// streak: its dedup key is prefix plus the task, run, step and the
// streak's last signal.
func (c *Controller) escalate(r *run, eventType string, h heal.Health, prefix string) {
	var p ledger.PipelineState
	var decision heal.Decision
	var e ledger.Event
	var at string
	c.do(func(st *loopState) {
		p = r.pipeline
		// The decision weighs the run's controller lease as the register has
		// it now (the Python cycle's precedence), not an assumed valid one.
		decision = heal.Decide(persistedStatus(h.Status), heal.CheckControllerLease(&p, &st.leases, c.now()))
		e = c.events.typed(p.TaskID, p.RunID, p.CurrentStep, eventType, ledger.SeverityWarn,
			"reason_code", h.ReasonCode, "silence_seconds", h.Silence, "effective_signal_at", ledger.FormatTime(h.SignalAt),
			"decision_action", decision.Action, "decision_reason_code", decision.ReasonCode)
		e.DedupKey = prefix + p.TaskID + ":" + p.RunID + ":" + p.CurrentStep + ":" + ledger.FormatTime(h.SignalAt)
		at = e.Timestamp
		// The heartbeat says when it last escalated. st.hb is whole here: an
		// observation comes from a pass, and every pass fills it in.
		st.hb.LastEscalationAt = &at
		st.dirty |= docHeartbeat
	})
	c.record(e)
}

// resetLiveness starts an attempt with no silence reported and nothing
// waiting in r's observation channel. Run goroutine only.
func (c *Controller) resetLiveness(r *run) {
	r.hung, r.warnedFor = false, time.Time{}
	c.settleObservations(r)
}
