package controller

import (
	"strconv"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// A follow-up is what a person types while a task is selected in the
// window: more words for that task, not a task of its own. The
// controller records it (an INSTRUCTION_RECEIVED whose payload says
// follow_up and which run it attaches to), keeps it in the run's
// pipeline and in the instruction index (so that a restart keeps it for
// a run the pipeline file does not show), and every later step attempt of the task is briefed with it
// (see stepInstruction). A task still in progress goes on and its next
// step (the next iteration of a loop) reads it; a blocked or failed one
// is retried with it; a finished one gets a new run of the same task,
// briefed with the task and its follow-ups. A run of another task never
// sees it, and since a new run starts with a fresh pipeline, it never
// resumes this task's agent session either.

// keyFollowUp + n (1, 2, …) holds the person's n-th follow-up of the
// run's task, in the order they arrived.
const keyFollowUp = "followup:"

// followUps returns the follow-ups recorded in p, oldest first.
func followUps(p *ledger.PipelineState) []string {
	var out []string
	for n := 1; ; n++ {
		t := p.RoleLifecycle.Get(keyFollowUp + strconv.Itoa(n))
		if t == "" {
			return out
		}
		out = append(out, t)
	}
}

// addFollowUp records text as the next follow-up of p and returns its
// number.
func addFollowUp(p *ledger.PipelineState, text string) int {
	n := len(followUps(p)) + 1
	p.RoleLifecycle = p.RoleLifecycle.With(keyFollowUp+strconv.Itoa(n), text)
	return n
}

// restoreFollowUps puts into a rebuilt run's pipeline the follow-ups the
// log says its task got (see indexEntry.FollowUps), when the pipeline
// (another run's file, or a fresh one) has fewer.
func restoreFollowUps(p *ledger.PipelineState, list []string) {
	if len(list) <= len(followUps(p)) {
		return
	}
	for i, t := range list {
		p.RoleLifecycle = p.RoleLifecycle.With(keyFollowUp+strconv.Itoa(i+1), t)
	}
}

// followUpNote is what a step's worker is told of the follow-ups of its
// task, after the instruction; "" when there are none. Called on the state loop.
func (c *Controller) followUpNote(p *ledger.PipelineState) string {
	var sb strings.Builder
	for _, t := range followUps(p) {
		sb.WriteString("\n\n" + c.loc.T("controller.followup.note", "Text", t))
	}
	return sb.String()
}

// followUp handles an instruction marked FollowUp: it names a task the
// controller has (its latest run, or the run RunID names). See the
// comment at the top of this file for what happens to each state.
func (c *Controller) followUp(req relay.Request, in relay.Instruction) (relay.Ack, error) {
	taskID, runID := strings.TrimSpace(in.TaskID), strings.TrimSpace(in.RunID)
	if taskID == "" {
		return relay.Ack{}, &relay.Error{Code: relay.CodeBadRequest, Detail: "task_id"}
	}
	var r *run
	var route ledger.Route
	var retry, done bool
	var n int
	var target string
	c.do(func(st *loopState) {
		if r = c.findRun(st, taskID, runID); r == nil {
			return
		}
		if done = r.final == ledger.StatusDone; done {
			return
		}
		route = r.pipeline.Route()
		retry = r.final == ledger.StatusFailed || r.final == ledger.StatusBlocked
		n = len(followUps(&r.pipeline)) + 1
		target = r.in.MessageID
	})
	if r == nil {
		return relay.Ack{}, &relay.Error{Code: codeNoRun, Detail: taskID + " " + runID}
	}
	if done {
		return c.followUpDone(req, in, r)
	}
	e := c.events.system(route.TaskID, route.RunID, route.ActiveStep, ledger.SeverityInfo, opInstruction,
		"message_id", req.ID, "text", in.Text, "received_at", ledger.FormatTime(c.now()),
		"route", routePayload(route), "generation", c.generation, "attached_to", target,
		"follow_up", true, "follow_up_number", n)
	if retry {
		// The instruction index reopens the run from this event.
		e.Payload = e.Payload.With("reopens", "true")
	}
	e.DedupKey = dedupInstruction + req.ID
	if err := c.journal.appendAck(e); err != nil {
		return relay.Ack{}, ackWriteError(err)
	}
	c.do(func(st *loopState) {
		addFollowUp(&r.pipeline, in.Text)
		st.current = r
	})
	c.persistSoon(r)
	if retry {
		c.retry(r)
	}
	return relay.Ack{Route: route, EventID: e.EventID}, nil
}

// followUpDone starts a new run of prev's task, finished DONE: briefed
// with the task's instruction, its earlier follow-ups and this one.
func (c *Controller) followUpDone(req relay.Request, in relay.Instruction, prev *run) (relay.Ack, error) {
	var at time.Time
	var taskID string
	var r *run
	var n int
	var route ledger.Route
	var e ledger.Event
	c.do(func(st *loopState) {
		at = c.now()
		taskID = prev.pipeline.TaskID
		r = c.newRun(instruction{MessageID: req.ID, Text: prev.in.Text, At: at, TaskID: taskID, RunID: c.freshRunID(st, taskID, at)})
		for _, t := range followUps(&prev.pipeline) {
			addFollowUp(&r.pipeline, t)
		}
		n = addFollowUp(&r.pipeline, in.Text)
		route = r.pipeline.Route()
		e = c.events.system(route.TaskID, route.RunID, route.ActiveStep, ledger.SeverityInfo, opInstruction,
			"message_id", req.ID, "text", prev.in.Text, "received_at", ledger.FormatTime(at),
			"route", routePayload(route), "generation", c.generation,
			"follow_up", true, "follow_up_number", n, "follow_up_text", in.Text, "follows", prev.in.MessageID,
			"follow_ups", followUps(&r.pipeline))
		e.DedupKey = dedupInstruction + req.ID
	})
	if err := c.journal.appendAck(e); err != nil {
		return relay.Ack{}, ackWriteError(err)
	}
	ack := relay.Ack{Route: route, EventID: e.EventID}
	c.do(func(st *loopState) {
		c.adopt(st, r)
	})
	c.notify(relay.Notice{Kind: relay.NoticeRoute, Route: &ack.Route})
	c.start(r)
	return ack, nil
}

// freshRunID is a run id for task taskID that none of the controller's
// runs has: the default one, numbered when a run of the same second has
// it already. Called on the state loop.
func (c *Controller) freshRunID(st *loopState, taskID string, at time.Time) string {
	base := ledger.DefaultRunID(taskID, at)
	id := base
	for n := 2; c.findRun(st, taskID, id) != nil; n++ {
		id = base + "_" + strconv.Itoa(n)
	}
	return id
}
