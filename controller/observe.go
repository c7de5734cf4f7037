package controller

import (
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// obsKind is what the liveness loop saw of a run's worker. The kinds are
// ordered by severity: a STALE observation covers a WARNING one.
type obsKind int

const (
	// obsWarning: the worker has been silent past heartbeat.warning_after.
	obsWarning obsKind = iota + 1
	// obsStale: silent past heartbeat.stale_after and no CPU progress
	// since the previous check, two agreeing signals that it is hung.
	obsStale
)

// observation is one judgment of the liveness loop about one worker,
// sent to the run that owns the worker (see post). Observations are
// level-triggered: the loop judges every running worker on every tick and
// sends again while the condition lasts, so a run never depends on one
// send arriving (etcd's lessor reports expiries the same way).
type observation struct {
	kind obsKind
	// proc is the worker judged: a run that has moved on to another
	// attempt ignores observations about an earlier one.
	proc *worker.Process
	// health is the evaluator's verdict, with the silence and its last
	// signal (the start of the silent streak, which names it).
	health heal.Health
	// warnReason is the reason code a WARNING carries (the warning
	// threshold), for the WARNING a STALE must be preceded by.
	warnReason string
}

// obsBuffer is the capacity of a run's observation channel. One is
// enough: the loop coalesces into the waiting observation (see post).
const obsBuffer = 1

// post hands o to r without ever blocking the liveness loop: a run that
// is slow, or between attempts and not listening, must not stall the
// checks of the others. When r has not taken the previous observation
// yet, the two are coalesced into one (see coalesce). Only the liveness
// loop sends on r.obs.
func (r *run) post(o observation) {
	for {
		select {
		case r.obs <- o:
			return
		default:
		}
		select {
		case old := <-r.obs:
			o = coalesce(old, o)
		default:
			// The run took it meanwhile: the slot is free again.
		}
	}
}

// coalesce merges a waiting observation with a newer one: about the same
// worker, the more severe wins (a STALE not yet handled is not replaced
// by a WARNING of a later tick); about another worker, the newer one
// (the earlier attempt is over).
func coalesce(old, newer observation) observation {
	if old.proc == newer.proc && old.kind > newer.kind {
		return old
	}
	return newer
}

// drainObservations drops whatever waits in r's channel: observations
// about a worker that is gone. Called by the run at the start of an
// attempt.
func drainObservations(r *run) {
	for {
		select {
		case <-r.obs:
		default:
			return
		}
	}
}

// observed is the run's handling of an observation about its worker
// proc, on the run's own goroutine: it reports a silent streak once as
// HEARTBEAT_WARNING and, for STALE, records HEARTBEAT_STALE (preceded by
// the streak's WARNING when the checks came too late to see it) and then
// stops its worker as hung. The escalation is on disk before the worker
// is stopped for it. hung and warnedFor are the run goroutine's own.
func (c *Controller) observed(r *run, proc *worker.Process, o observation) {
	if o.proc != proc || r.hung {
		return // about an earlier attempt, or already being stopped
	}
	streak := o.health.SignalAt
	warned := r.warnedFor.Equal(streak)
	switch o.kind {
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
		c.mu.Lock()
		taskID, step := r.pipeline.TaskID, r.pipeline.CurrentStep
		c.mu.Unlock()
		c.log.Warn("worker stale; stopping it", "task_id", taskID, "step", step, "pid", proc.PID(), "silence_s", o.health.Silence)
		proc.Stop(transcript.StopHung)
	}
}

// escalate records a heartbeat event for r's silent streak, once per
// streak: its dedup key is prefix plus the task, run, step and the
// streak's last signal.
func (c *Controller) escalate(r *run, eventType string, h heal.Health, prefix string) {
	c.mu.Lock()
	p := r.pipeline
	// The decision weighs the run's controller lease as the register has
	// it now (the Python cycle's precedence), not an assumed valid one.
	decision := heal.Decide(persistedStatus(h.Status), heal.CheckControllerLease(&p, &c.leases, c.now()))
	e := c.events.typed(p.TaskID, p.RunID, p.CurrentStep, eventType, ledger.SeverityWarn,
		"reason_code", h.ReasonCode, "silence_seconds", h.Silence, "effective_signal_at", ledger.FormatTime(h.SignalAt),
		"decision_action", decision.Action, "decision_reason_code", decision.ReasonCode)
	e.DedupKey = prefix + p.TaskID + ":" + p.RunID + ":" + p.CurrentStep + ":" + ledger.FormatTime(h.SignalAt)
	at := e.Timestamp
	// The heartbeat says when it last escalated. c.hb is whole here: an
	// observation comes from a pass, and every pass fills it in.
	c.hb.LastEscalationAt = &at
	c.dirty |= docHeartbeat
	c.mu.Unlock()
	c.record(e)
}

// resetLiveness starts an attempt with no silence reported and nothing
// waiting in r's observation channel. Run goroutine only.
func resetLiveness(r *run) {
	r.hung, r.warnedFor = false, time.Time{}
	drainObservations(r)
}
