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
	c.mu.Lock()
	if existing := c.namedRun(in); existing != nil {
		c.mu.Unlock()
		return c.attach(req, in, existing)
	}
	r := c.newRun(instruction{MessageID: req.ID, Text: in.Text, At: c.now(), TaskID: strings.TrimSpace(in.TaskID), RunID: strings.TrimSpace(in.RunID)})
	route := r.pipeline.Route()
	e := c.events.system(route.TaskID, route.RunID, route.ActiveStep, ledger.SeverityInfo, opInstruction,
		"message_id", req.ID, "text", in.Text, "received_at", ledger.FormatTime(r.in.At),
		"route", routePayload(route), "generation", c.generation)
	e.DedupKey = dedupInstruction + req.ID
	c.mu.Unlock()
	// Durable before acknowledged, and outside the lock, so that
	// concurrent acknowledgements share one fsync (see journal). The relay
	// never runs two requests with one id at once, so nobody can record
	// this id meanwhile.
	if err := c.journal.appendAck(e); err != nil {
		c.log.Error("record instruction", "message_id", req.ID, "err", err)
		return relay.Ack{}, ackWriteError(err)
	}
	ack := relay.Ack{Route: route, EventID: e.EventID}
	c.mu.Lock()
	c.adopt(r)
	c.mu.Unlock()
	c.notify(relay.Notice{Kind: relay.NoticeRoute, Route: &ack.Route})
	c.admit(r)
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
// this controller has it. Called with c.mu held.
func (c *Controller) namedRun(in relay.Instruction) *run {
	taskID, runID := strings.TrimSpace(in.TaskID), strings.TrimSpace(in.RunID)
	if taskID == "" || runID == "" {
		return nil
	}
	for _, r := range c.order {
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
	c.mu.Lock()
	route := r.pipeline.Route()
	retry := r.final == ledger.StatusFailed || r.final == ledger.StatusBlocked
	c.mu.Unlock()
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
	c.mu.Lock()
	c.current = r
	c.mu.Unlock()
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
	c.mu.Lock()
	r := c.findRun(ctl.TaskID, ctl.RunID)
	if r == nil && ctl.Kind != relay.ControlStatus {
		c.mu.Unlock()
		return relay.Ack{}, &relay.Error{Code: codeNoRun, Detail: ctl.TaskID + " " + ctl.RunID}
	}
	var route ledger.Route
	if r != nil {
		route = r.pipeline.Route()
		if err := c.checkControl(r, ctl.Kind); err != nil {
			c.mu.Unlock()
			return relay.Ack{}, err
		}
	}
	taskID, runID := orGlobal(route.TaskID), orGlobal(route.RunID)
	target := ""
	if r != nil {
		target = r.in.MessageID
	}
	e := c.events.system(taskID, runID, route.ActiveStep, ledger.SeverityInfo, opControl,
		"message_id", req.ID, "kind", string(ctl.Kind), "target_message_id", target, "route", routePayload(route))
	if ctl.Kind == relay.ControlReject || ctl.Kind == relay.ControlAbandon || ctl.Kind == relay.ControlCancel {
		e.Payload = e.Payload.With("reason", ctl.Reason)
	}
	e.DedupKey = dedupControl + req.ID
	c.mu.Unlock()
	// Durable before acknowledged, and outside the lock (no fsync under
	// c.mu).
	if err := c.journal.appendAck(e); err != nil {
		return relay.Ack{}, ackWriteError(err)
	}
	ack := relay.Ack{Route: route, EventID: e.EventID}
	switch ctl.Kind {
	case relay.ControlAccept, relay.ControlReject:
		c.mu.Lock()
		round := ctl.Kind == relay.ControlReject && c.prRoundOpen(r)
		if !round {
			r.deliver(verdict{accept: ctl.Kind == relay.ControlAccept, reason: strings.TrimSpace(ctl.Reason)})
		}
		c.mu.Unlock()
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
// run's state. Called with c.mu held.
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
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watched = true // someone watches: their leaving is news (leave.go)
	st := relay.Status{Controller: relay.ControllerState{State: c.controllerState(), PID: c.pid}}
	if c.current != nil {
		st.Route = c.current.pipeline.Route()
	}
	for _, r := range c.order {
		st.Runs = append(st.Runs, r.relayState())
	}
	return st, nil
}

// findRun returns the run with the ids, or the current run when both are
// empty. Called with c.mu held.
func (c *Controller) findRun(taskID, runID string) *run {
	if taskID == "" && runID == "" {
		return c.current
	}
	for i := len(c.order) - 1; i >= 0; i-- {
		r := c.order[i]
		if (taskID == "" || r.pipeline.TaskID == taskID) && (runID == "" || r.pipeline.RunID == runID) {
			return r
		}
	}
	return nil
}
