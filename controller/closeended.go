package controller

import (
	"github.com/daokit/daokit/ledger"
)

// A person's /cancel and /abandon work on a run in every state that is
// not over: running, waiting for its lane or for a review, and ended
// BLOCKED or FAILED while it waits for the person. An ended run has no
// worker left to stop; its cancel ends it for good instead of leaving
// the window calling for a /retry nobody wants (closeEnded).

// closedReason reports whether reason ended a run on a person's
// request: a run ended so is over, and a second /cancel has nothing left
// to end.
func closedReason(reason string) bool {
	return reason == ReasonCancelled || reason == ReasonAbandoned
}

// cancellable reports whether /cancel can end r. Called on the state loop.
func cancellable(r *run) bool {
	switch r.final {
	case "":
		return true
	case ledger.StatusBlocked:
		return true
	case ledger.StatusFailed:
		return !closedReason(r.endReason)
	}
	return false
}

// abandonable reports whether /abandon can drop r: a run whose worker
// never started, waiting for its lane or ended before any worker ran
// (its worktree could not be made, its budget was spent). Called on the
// state loop.
func abandonable(r *run) bool {
	if r.finished() {
		return cancellable(r) && !r.workerRan
	}
	state, _ := r.runState()
	return state == stateIdle || state == stateWaiting
}

// stopRun carries out an accepted /cancel or /abandon (abandon true):
// a live run's worker or wait is stopped and the run ends FAILED with
// the reason; an ended run is closed (closeEnded). why is the person's
// own words, if any.
func (c *Controller) stopRun(r *run, abandon bool, why string) {
	var ended bool
	c.do(func(*loopState) {
		ended = r.finished()
	})
	switch {
	case ended:
		reason := ReasonCancelled
		if abandon {
			reason = ReasonAbandoned
		}
		c.closeEnded(r, reason, why)
	case abandon:
		c.abandon(r)
	default:
		c.cancel(r)
	}
}

// closeEnded ends a run that had ended BLOCKED or FAILED: it ends FAILED
// with reason (ReasonCancelled or ReasonAbandoned), recorded in a second
// RUN_FINISHED whose payload names the status it ended from
// (ended_from) and the person's words (reason), so that the window
// stops calling for the person and the index stops offering the run
// for a retry with its old reason. The run's goroutine has ended (or is
// ending: its own RUN_FINISHED comes first).
func (c *Controller) closeEnded(r *run, reason, why string) {
	var done chan struct{}
	c.do(func(*loopState) {
		done = r.done
	})
	<-done
	var from string
	open := false
	c.do(func(*loopState) {
		from = r.final
		open = cancellable(r) && from != ""
	})
	if !open {
		return // a retry or another cancel came first
	}
	c.finish(r, ledger.StatusFailed, reason, "ended_from", from, "reason", why)
}
