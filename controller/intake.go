package controller

import (
	"context"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

var _ relay.Handler = (*Controller)(nil)

// HandleInstruction records the instruction in events.jsonl (fsynced)
// before it acknowledges it, then starts the run. A resent message id gets
// the original acknowledgement and starts nothing.
func (c *Controller) HandleInstruction(_ context.Context, req relay.Request, in relay.Instruction) (relay.Ack, error) {
	if strings.TrimSpace(in.Text) == "" {
		return relay.Ack{}, &relay.Error{Code: codeEmpty}
	}
	if err := checkIDs("task_id", in.TaskID, "run_id", in.RunID); err != nil {
		return relay.Ack{}, err
	}
	if ack, ok, err := c.seen(req.ID); ok || err != nil {
		return ack, err
	}
	if in.FollowUp {
		return c.followUp(req, in)
	}
	var existing, r *run
	var route ledger.Route
	var e ledger.Event
	c.do(func(st *loopState) {
		if existing = c.namedRun(st, in); existing != nil {
			return
		}
		r = c.newRun(instruction{MessageID: req.ID, Text: in.Text, At: c.now(), TaskID: strings.TrimSpace(in.TaskID), RunID: strings.TrimSpace(in.RunID)})
		route = r.pipeline.Route()
		e = c.events.system(route.TaskID, route.RunID, route.ActiveStep, ledger.SeverityInfo, opInstruction,
			"message_id", req.ID, "text", in.Text, "received_at", ledger.FormatTime(r.in.At),
			"route", routePayload(route), "generation", c.generation)
	})
	if existing != nil {
		return c.attach(req, in, existing)
	}
	e.DedupKey = dedupInstruction + req.ID
	// Durable before acknowledged, and outside the state loop, so that
	// concurrent acknowledgements share one fsync (see journal). The relay
	// never runs two requests with one id at once, so nobody can record
	// this id meanwhile.
	if err := c.journal.appendAck(e); err != nil {
		c.log.Error("record instruction", "message_id", req.ID, "err", err)
		return relay.Ack{}, ackWriteError(err)
	}
	ack := relay.Ack{Route: route, EventID: e.EventID}
	admitted := false
	c.do(func(st *loopState) {
		c.adopt(st, r)
		admitted = c.admit(st)
	})
	c.notify(relay.Notice{Kind: relay.NoticeRoute, Route: &ack.Route})
	if admitted {
		go func() {
			defer c.runs.Done()
			c.startOrQueue(r)
		}()
	}
	return ack, nil
}

// seen returns the original acknowledgement of a message id the
// controller acknowledged before, however long ago (see instrIndex), with
// Duplicate set. The relay never runs two requests with one id at once,
// so nobody can record the id between this check and the append.
func (c *Controller) seen(id string) (relay.Ack, bool, error) {
	en, ok, err := c.index.lookup(id)
	if err != nil {
		c.log.Error("look up message id", "message_id", id, "err", err)
		return relay.Ack{}, false, &relay.Error{Code: codeIndexRead, Detail: indexDir}
	}
	if !ok {
		return relay.Ack{}, false, nil
	}
	ack := en.ack()
	ack.Duplicate = true
	return ack, true, nil
}

// namedRun returns the run an instruction names by task and run id, if
// this controller has it. Called on the state loop.
func (c *Controller) namedRun(st *loopState, in relay.Instruction) *run {
	taskID, runID := strings.TrimSpace(in.TaskID), strings.TrimSpace(in.RunID)
	if taskID == "" || runID == "" {
		return nil
	}
	for _, r := range st.order {
		if r.pipeline.TaskID == taskID && r.pipeline.RunID == runID {
			return r
		}
	}
	return nil
}

// attach answers an instruction that names an existing run, as the
// Python tool's `run` continues the run of its --task-id/--run-id: a run
// in progress or done is left alone, a failed or blocked one is retried.
// The instruction is recorded as attached, so that recovery does not take
// it for a run of its own.
func (c *Controller) attach(req relay.Request, in relay.Instruction, r *run) (relay.Ack, error) {
	var route ledger.Route
	var retry bool
	c.do(func(*loopState) {
		route = r.pipeline.Route()
		retry = r.final == ledger.StatusFailed || r.final == ledger.StatusBlocked
	})
	e := c.events.system(route.TaskID, route.RunID, route.ActiveStep, ledger.SeverityInfo, opInstruction,
		"message_id", req.ID, "text", in.Text, "received_at", ledger.FormatTime(c.now()),
		"route", routePayload(route), "generation", c.generation, "attached_to", r.in.MessageID)
	if retry {
		// The instruction index reopens the run from this event.
		e.Payload = e.Payload.With("reopens", "true")
	}
	e.DedupKey = dedupInstruction + req.ID
	if err := c.journal.appendAck(e); err != nil {
		return relay.Ack{}, ackWriteError(err)
	}
	ack := relay.Ack{Route: route, EventID: e.EventID}
	c.do(func(st *loopState) {
		st.current = r
	})
	if retry {
		c.retry(r)
	}
	return ack, nil
}

// HandleControl records a control request and decides it: cancel or
// abandon a run (live, waiting, in review, or ended BLOCKED or FAILED:
// see closeended.go), retry a failed step, answer a review, or report
// the route.
func (c *Controller) HandleControl(_ context.Context, req relay.Request, ctl relay.Control) (relay.Ack, error) {
	if err := checkIDs("task_id", ctl.TaskID, "run_id", ctl.RunID, "step_id", ctl.StepID); err != nil {
		return relay.Ack{}, err
	}
	if ack, ok, err := c.seen(req.ID); ok || err != nil {
		return ack, err
	}
	if ctl.Kind == relay.ControlIssue {
		return c.fileIssue(req, ctl) // team.go: no run involved
	}
	if ctl.Kind.OnIssue() {
		return c.changeIssue(req, ctl) // issuechange.go
	}
	var r *run
	var route ledger.Route
	var target string
	var refused error
	c.do(func(st *loopState) {
		r = c.findRun(st, ctl.TaskID, ctl.RunID)
		if r == nil {
			return
		}
		route, target = r.pipeline.Route(), r.in.MessageID
		refused = c.checkControl(r, ctl.Kind)
	})
	if r == nil && ctl.Kind != relay.ControlStatus {
		return relay.Ack{}, &relay.Error{Code: codeNoRun, Detail: ctl.TaskID + " " + ctl.RunID}
	}
	if refused != nil {
		return relay.Ack{}, refused
	}
	taskID, runID := orGlobal(route.TaskID), orGlobal(route.RunID)
	e := c.events.system(taskID, runID, route.ActiveStep, ledger.SeverityInfo, opControl,
		"message_id", req.ID, "kind", string(ctl.Kind), "target_message_id", target, "route", routePayload(route))
	if ctl.Kind == relay.ControlReject || ctl.Kind == relay.ControlAbandon || ctl.Kind == relay.ControlCancel {
		e.Payload = e.Payload.With("reason", ctl.Reason)
	}
	e.DedupKey = dedupControl + req.ID
	// Durable before acknowledged, and outside the state loop (no fsync
	// in a request).
	if err := c.journal.appendAck(e); err != nil {
		return relay.Ack{}, ackWriteError(err)
	}
	ack := relay.Ack{Route: route, EventID: e.EventID}
	switch ctl.Kind {
	case relay.ControlAccept, relay.ControlReject:
		var round bool
		c.do(func(*loopState) {
			round = ctl.Kind == relay.ControlReject && c.prRoundOpen(r)
			if !round {
				r.deliver(verdict{accept: ctl.Kind == relay.ControlAccept, reason: strings.TrimSpace(ctl.Reason)})
			}
		})
		if round {
			c.anotherRound(r, strings.TrimSpace(ctl.Reason)) // prround.go
		}
	case relay.ControlCancel, relay.ControlAbandon:
		c.stopRun(r, ctl.Kind == relay.ControlAbandon, strings.TrimSpace(ctl.Reason))
	case relay.ControlRetry:
		c.retry(r)
	}
	return ack, nil
}

// checkControl refuses a control request that makes no sense for the
// run's state. Called on the state loop.
func (c *Controller) checkControl(r *run, kind relay.ControlKind) error {
	switch kind {
	case relay.ControlCancel:
		if !cancellable(r) {
			return &relay.Error{Code: codeNotRunning, Detail: r.pipeline.Status}
		}
	case relay.ControlRetry:
		if s := r.pipeline.Status; s != ledger.StatusFailed && s != ledger.StatusBlocked {
			return &relay.Error{Code: codeNotFailed, Detail: s}
		}
	case relay.ControlAccept, relay.ControlReject:
		if r.review == nil && (kind != relay.ControlReject || !c.prRoundOpen(r)) {
			return &relay.Error{Code: codeNoReview, Detail: r.pipeline.Status}
		}
	case relay.ControlAbandon:
		if !abandonable(r) {
			state, _ := r.runState()
			return &relay.Error{Code: codeNotWaiting, Detail: state}
		}
	}
	return nil
}

// HandleObserve returns the route and the state of every run in memory.
func (c *Controller) HandleObserve(context.Context, relay.Request) (relay.Status, error) {
	status := relay.Status{Controller: relay.ControllerState{State: c.controllerState(), PID: c.pid}}
	c.do(func(st *loopState) {
		st.watched = true // someone watches: their leaving is news (leave.go)
		if st.current != nil {
			status.Route = st.current.pipeline.Route()
		}
		for _, r := range st.order {
			status.Runs = append(status.Runs, r.relayState())
		}
	})
	return status, nil
}

// findRun returns the run with the ids, or the current run when both are
// empty. Called on the state loop.
func (c *Controller) findRun(st *loopState, taskID, runID string) *run {
	if taskID == "" && runID == "" {
		return st.current
	}
	for i := len(st.order) - 1; i >= 0; i-- {
		r := st.order[i]
		if (taskID == "" || r.pipeline.TaskID == taskID) && (runID == "" || r.pipeline.RunID == runID) {
			return r
		}
	}
	return nil
}
