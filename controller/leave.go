package controller

import (
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// Abandon-on-leave (seed 004 § 4, "if the product contract enables
// abandonment, the coordinator handles it directly"): with [runs]
// abandon_waiting_on_leave, a run still waiting for its lane when the
// person leaves is dropped as if they had typed /abandon. The person
// leaves when the last observer (a window, the dashboard, a
// `daokit send --wait`) that watched the controller disconnects; the
// window's quit closes its connection, which is how a closed window is
// seen here. It is judged on the liveness loop's tick, so a window that
// reconnects within one check interval has not left, and a run queued
// with nobody watching since the last drop is never dropped for it.

// whyLeft is the reason recorded with a run dropped because its person
// left, in the payload where a person's /abandon keeps their words.
const whyLeft = "person left (runs.abandon_waiting_on_leave)"

// checkLeave is called on every liveness tick: when observers have
// watched since the last drop (HandleObserve sets c.watched) and none
// is left, the person has left, and the waiting runs are dropped.
func (c *Controller) checkLeave() {
	if c.server == nil || !c.cfg.Runs.AbandonWaitingOnLeave || c.server.Stats().Observers > 0 {
		return
	}
	var left bool
	c.do(func(st *loopState) {
		left = st.watched
		st.watched = false
	})
	if left {
		c.abandonWaiting()
	}
}

// abandonWaiting drops every run whose worker never started and that
// still waits for its lane. A run that ended before any worker ran
// (BLOCKED on its budget, say) is left for its person: it waits for
// them, not for a lane.
func (c *Controller) abandonWaiting() {
	var waiting []*run
	var events []ledger.Event
	c.do(func(st *loopState) {
		for _, r := range st.order {
			if r.finished() || !abandonable(r) {
				continue
			}
			waiting = append(waiting, r)
			// Recorded as a person's /abandon is, with no message id (nobody
			// sent one) and the trigger that stood in for them.
			route := r.pipeline.Route()
			events = append(events, c.events.system(route.TaskID, route.RunID, route.ActiveStep, ledger.SeverityInfo, opControl,
				"kind", string(relay.ControlAbandon), "trigger", "leave", "reason", whyLeft, "route", routePayload(route)))
		}
	})
	if len(events) > 0 {
		if err := c.journal.append(events...); err != nil {
			// Not recorded, not done: the runs keep waiting, as they
			// would have without the switch.
			c.log.Error("record abandon on leave", "err", err)
			return
		}
	}
	for _, r := range waiting {
		c.log.Info("person left; abandoning a waiting run", "task", r.pipeline.TaskID, "run", r.pipeline.RunID)
		c.stopRun(r, true, whyLeft)
	}
}
