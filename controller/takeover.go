package controller

import (
	"strconv"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// takeOver adopts the step of a worker that was stopped as stale (or
// whose lease was lost). What it records is heal.PlanTakeover's, the
// same takeover `daokit takeover` records: the leases become TAKEN_OVER,
// the controller holds fresh ones until the replacement worker starts,
// the step's fencing generation rises, LEASE_TAKEOVER is recorded with
// the reason, and a handoff package is written and applied so that the
// next attempt resumes from it.
func (c *Controller) takeOver(r *run, step string, reason vocab.Reason) {
	var t heal.Takeover
	var err error
	c.do(func(st *loopState) {
		now := c.now()
		t, err = heal.PlanTakeover(&r.pipeline, &st.leases, heal.TakeoverSpec{
			TaskID: r.pipeline.TaskID, RunID: r.pipeline.RunID, Step: step, Reason: reason,
			Successor: heal.Holder{ThreadID: "takeover-" + strconv.Itoa(c.generation), PID: c.pid}, TTL: c.leaseTTL(),
			Keep: heal.KeepSet{LatestInstruction: r.in.Text},
		}, now)
		if err != nil {
			return
		}
		r.lease, r.ctlLease, r.proc = nil, nil, nil
		for _, l := range t.Adopted {
			r.successors = append(r.successors, heal.Adopt(l, c.leaseTTL(), now))
		}
		c.writeLeases(st)
	})
	if err != nil {
		c.log.Error("take over", "step", step, "err", err)
		return
	}
	c.finishTakeover(r.pipelineOf, &t)
	c.persist(r)
}

// finishTakeover completes a takeover PlanTakeover decided on the
// pipeline pipeline picks and the controller's register: it writes the
// handoff package (outside the state loop: no acknowledgement waits for
// a takeover's disk), applies it to the pipeline, writes the register
// and records the takeover's events. The caller then writes the
// pipeline, after the events as every pipeline write comes after the
// log's: it is r's own pipeline for the controller's own takeovers
// (persist), a copy for a person's (operateTakeover), and the pipeline
// the previous controller left for a start-up succession (recover).
// Either way it is changed on the state loop only, where pipeline is
// called.
func (c *Controller) finishTakeover(pipeline func(*loopState) *ledger.PipelineState, t *heal.Takeover) {
	var written error
	if pkg, ok := t.Handoff(); ok {
		written = c.store.WriteHandoff(pkg)
	}
	c.do(func(st *loopState) {
		t.ApplyHandoff(pipeline(st), written)
	})
	c.flushDocs()
	if err := t.HandoffErr(); err != nil {
		c.log.Error("handoff after takeover", "task_id", t.Spec.TaskID, "step", t.Spec.Step, "err", err)
	}
	for _, e := range t.Events(ledger.Layout{Root: c.opts.Root}.Handoff()) {
		c.record(e)
	}
}

// releaseSuccessors ends the leases the controller held for r between a
// takeover and the replacement worker's start. Called on the state loop.
func (c *Controller) releaseSuccessors(st *loopState, r *run) {
	now := c.now()
	for _, h := range r.successors {
		if err := h.Release(&st.leases, now); err != nil {
			c.log.Warn("release a lease held since a takeover", "token", h.Token(), "err", err)
		}
	}
	r.successors = nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
