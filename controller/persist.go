package controller

import (
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// OpRunFinished marks the end of a run in events.jsonl: recovery treats an
// instruction without one as unfinished.
const OpRunFinished = "RUN_FINISHED"

// persist writes r's pipeline when r is the run the file shows. A failed
// write is logged: the events already hold what happened, and the next
// write replaces the file whole.
func (c *Controller) persist(r *run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != r {
		return
	}
	written, err := c.store.WritePipeline(r.pipeline)
	if err != nil {
		c.log.Error("write pipeline", "task_id", r.pipeline.TaskID, "err", err)
		return
	}
	r.pipeline, c.pipeline = written, written
}

// record appends an event. Like persist, a failure is logged rather than
// fatal to the run: the run's outcome still reaches the pipeline file.
func (c *Controller) record(_ *run, e ledger.Event) {
	if err := c.store.AppendEvent(e); err != nil {
		c.log.Error("append event", "type", e.EventType, "err", err)
	}
}

// writeLeasesLocked writes the lease register. Called with c.mu held.
func (c *Controller) writeLeasesLocked() {
	written, err := c.store.WriteLeases(c.leases)
	if err != nil {
		c.log.Error("write leases", "err", err)
		return
	}
	c.leases = written
}

// transition moves r's current attempt to a new run state through the
// state machine, records it and tells the windows. An illegal transition
// is a bug in the controller: it is logged and refused.
func (c *Controller) transition(r *run, to, reason string) {
	c.mu.Lock()
	from := r.state
	if err := checkTransition(from, to); err != nil {
		c.mu.Unlock()
		c.log.Error("illegal run transition", "from", from, "to", to, "err", err)
		return
	}
	r.state, r.reason = to, reason
	p := r.pipeline
	state := r.relayState()
	c.mu.Unlock()
	e := c.events.system(p.TaskID, p.RunID, p.CurrentStep, ledger.SeverityInfo, OpRunState,
		"from", from, "to", to, "reason_code", reason, "lane", state.Lane)
	if reason != "" && to != StateCompleted {
		e.Severity = ledger.SeverityWarn
	}
	c.record(r, e)
	c.notify(relay.Notice{Kind: relay.NoticeRunState, Run: &state})
}
