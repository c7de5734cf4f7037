package controller

import (
	"context"

	"github.com/daokit/daokit/config"
)

// A new instruction whose first lane is full waits as data, not as a
// goroutine: its run is a ticket in the lane's queue (laneSlots.queue),
// and its goroutine starts when the ticket gets its slot. A parked run
// goroutine keeps the stack of the whole workflow it is in (about 37 KiB
// each); three hundred instructions queued behind one busy lane cost the
// controller that much for nothing.

// queuedSlot is what a run that waited as data brings to its first
// attempt: its ticket, and whether the slot was granted (false when the
// run was cancelled while it waited). Its waiting state and its place in
// line are recorded already.
type queuedSlot struct {
	t          *ticket // nil when the attempt waits for its slot as any
	step, lane string
	granted    bool
}

// admit admits a new instruction's run, unless the controller is
// stopping (the next controller resumes it then): it counts the run's
// admission among the runs shutdown waits for and reports true, and the
// caller starts or queues the run (startOrQueue) in a goroutine beside
// its acknowledgement, which does not wait for the run's first records,
// as it never waited for the run's goroutine. The caller's goroutine
// calls c.runs.Done when startOrQueue returns. Called on the state loop,
// in the request that adopts the run: one request for both.
func (c *Controller) admit(st *loopState) bool {
	if st.stopping {
		return false
	}
	c.runs.Add(1)
	return true
}

// startOrQueue starts a new or resumed instruction's run, or queues it
// as data when its first step would only wait for its lane. The run's state and its
// place in line are recorded as the run's goroutine would record them.
func (c *Controller) startOrQueue(r *run) {
	var step, lane string
	var ok bool
	c.do(func(st *loopState) {
		step, lane, ok = c.queueable(st, r)
		if ok {
			// Before the ticket can be granted: the attempt that takes it
			// finds its waiting recorded.
			r.life = c.newLifecycle(r, step)
			r.queueRecorded = false
		}
	})
	if !ok {
		c.start(r)
		return
	}
	c.transition(r, stateWaiting, "")
	recorded := make(chan struct{})
	t, pos := c.slots.queue(r, step, lane, recorded)
	if t == nil {
		// No place to take (the lanes stopped): the attempt waits as any.
		r.gate = &queuedSlot{step: step, lane: lane}
		c.start(r)
		return
	}
	if pos == 0 {
		// The slot was free and is r's: nobody else starts r.
		close(recorded)
		r.gate = &queuedSlot{t: t, step: step, lane: lane, granted: true}
		if !c.start(r) {
			c.slots.releaseTicket(t)
		}
		return
	}
	c.queued(r, step, lane, pos)
	close(recorded)
	var cancelled bool
	c.do(func(*loopState) {
		cancelled = r.cancelled
	})
	if cancelled {
		// A cancel that came before the ticket found nothing to withdraw.
		if t := c.slots.withdraw(r); t != nil {
			c.startQueued(t, false)
		}
	}
}

// queueable reports whether r's first step is certain to begin
// with a wait for its lane, with nothing recorded before it: the
// workflow's first configured step, not finished yet, in a flow without
// loop iterations and without callbacks of its own to start, within its
// budget. It returns the step and its lane. Called on the state loop.
func (c *Controller) queueable(st *loopState, r *run) (step, lane string, ok bool) {
	if st.stopping || len(c.workflow) == 0 || c.cfg.Workflow.Flow() == config.FlowLoop {
		return "", "", false
	}
	for _, cb := range c.cfg.Workflow.Callbacks {
		if cb.Listens() == config.CallbackEventsRun {
			return "", "", false
		}
	}
	first := c.workflow[0]
	step, lane = r.pipeline.CurrentStep, LaneOfStep(&r.pipeline, r.pipeline.CurrentStep)
	if step != first.ID || lane != first.Lane || lane == "" || reviewPending(&r.pipeline, step) ||
		r.pipeline.RoleLifecycle.Get("step:"+step) == stepCompleted {
		return "", "", false
	}
	if budget, limited := c.budgetOf(r); limited && r.spent >= budget {
		return "", "", false
	}
	return step, lane, true
}

// applyLanes carries out what a change of the lanes did to runs queued
// as data: those granted a slot start.
func (c *Controller) applyLanes(e laneEffects) {
	for _, t := range e.started {
		c.startQueued(t, true)
	}
}

// startQueued starts the goroutine of a run that waited as data: its
// slot was granted, or (granted false) it was cancelled while it waited.
// The lanes hand each ticket to one caller only, so nobody else starts
// the run meanwhile.
func (c *Controller) startQueued(t *ticket, granted bool) {
	<-t.recorded // its place in line is recorded before it goes on
	t.run.gate = &queuedSlot{t: t, step: t.step, lane: t.lane, granted: granted}
	if !c.start(t.run) {
		c.slots.releaseTicket(t)
	}
}

// takeGate hands the attempt at step on lane what its run brought from
// its wait as data, if anything: the slot to use and whether the
// waiting state is recorded already. A slot for another lane or step (a
// workflow that did not go where startOrQueue expected) is given back.
// Called by the run's goroutine.
func (c *Controller) takeGate(r *run, step, lane string) (g *queuedSlot, waited bool) {
	g, r.gate = r.gate, nil
	if g == nil {
		return nil, false
	}
	if g.step != step || g.lane != lane {
		if g.t != nil {
			c.slots.releaseTicket(g.t)
		}
		return nil, false
	}
	if g.t == nil {
		return nil, true
	}
	return g, true
}

// dropGate gives back a slot its run got but never used (the workflow
// ended before its first attempt). Called by the run's goroutine.
func (c *Controller) dropGate(r *run) {
	g := r.gate
	r.gate = nil
	if g != nil && g.t != nil {
		c.slots.releaseTicket(g.t)
	}
}

// acquireGated is the attempt's wait for its slot when its run queued
// as data: the slot it was granted, or ctx's end when it was cancelled
// meanwhile.
func (c *Controller) acquireGated(ctx context.Context, g *queuedSlot) (release func(), err error) {
	release = func() { c.slots.releaseTicket(g.t) }
	if !g.granted {
		release()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, context.Canceled
	}
	return release, nil
}
