package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/workflow"
)

// Lifecycle keys of the workflow (see workflow.ProgressOf), and two of
// the controller's own.
const (
	keyLoopIteration  = workflow.KeyIteration
	keyLoopMax        = workflow.KeyMax
	keyLoopAgent      = workflow.KeyAgent
	keyVerdict        = workflow.KeyVerdict
	keyVerdictReason  = workflow.KeyVerdictReason
	keyDecision       = workflow.KeyDecision
	keyDecisionCode   = workflow.KeyDecisionCode
	keyDecisionReason = workflow.KeyDecisionReason
	keyJudge          = workflow.KeyJudge
	// keyLoopExtra counts iterations a person granted by retrying a loop
	// that used all of its max_iterations.
	keyLoopExtra = "loop:extra"
	// keyOutput prefixes what a finished step said (JSON of stepRecord),
	// so that a restarted controller resumes without running it again.
	keyOutput = "out:"
)

// ReasonWorkflowError ends a run whose workflow could not go on for a
// reason that is not a worker's (its memory could not be written).
const ReasonWorkflowError = string(vocab.ReasonWorkflowError)

// flowSteps returns the step templates a run starts with: the configured
// steps, the single pass, or the first step of a loop (a loop adds the
// others as it goes).
func flowSteps(cfg config.Config) []stepTemplate {
	w := cfg.Workflow
	switch w.Flow() {
	case config.FlowSingle:
		return []stepTemplate{
			{ID: "coder", Lane: w.Coder, Title: "Coder", Category: "implementation"},
			{ID: "reviewer", Lane: w.Reviewer, Title: "Reviewer", Category: "review"},
		}
	case config.FlowLoop:
		return []stepTemplate{loopStep(1, workflow.RoleCoder, w.Coder)}
	}
	return workflowOf(cfg)
}

// loopStep is the template of an agent's step in iteration n.
func loopStep(n int, role workflow.Role, lane string) stepTemplate {
	category := "implementation"
	if role != workflow.RoleCoder {
		category = "review"
	}
	if role == workflow.RoleJudge && lane == "" {
		category = "judge"
	}
	return stepTemplate{ID: workflow.StepID(n, string(role)), Lane: lane,
		Title: fmt.Sprintf("Iteration %d: %s", n, role), Category: category}
}

// flowOf builds the workflow of r from daokit.toml, with the callbacks
// that keep the ledger, the summaries and the metrics, and those of
// [[workflow.callbacks]]; done closes the latter once the flow ended.
func (c *Controller) flowOf(r *run) (flow workflow.Flow, done func()) {
	w := c.cfg.Workflow
	switch w.Flow() {
	case config.FlowSingle:
		flow = workflow.SinglePass(c.agent(r, "coder", workflow.RoleCoder, w.Coder), c.agent(r, "reviewer", workflow.RoleReviewer, w.Reviewer))
	case config.FlowLoop:
		body := workflow.SinglePass(c.agent(r, "coder", workflow.RoleCoder, w.Coder), c.agent(r, "reviewer", workflow.RoleReviewer, w.Reviewer))
		var extra int
		c.do(func(*loopState) {
			extra, _ = strconv.Atoi(r.pipeline.RoleLifecycle.Get(keyLoopExtra))
		})
		flow = workflow.NewLoop(body, c.judgeOf(r), w.MaxIterations+extra)
	default:
		agents := make([]workflow.Agent, 0, len(c.workflow))
		for _, t := range c.workflow {
			agents = append(agents, c.agent(r, t.ID, workflow.RoleStep, t.Lane))
		}
		flow = workflow.NewSequential("steps", agents...)
	}
	for _, cb := range c.flowCallbacks(r) {
		flow.AddCallback(cb)
	}
	user, done := c.runCallbacks(r)
	for _, cb := range user {
		flow.AddCallback(cb)
	}
	return flow, done
}

// judgeOf returns the loop's judge.
func (c *Controller) judgeOf(r *run) workflow.Judge {
	w := c.cfg.Workflow
	switch w.Judge {
	case config.JudgeCommand:
		return worktreeJudge{c: c, r: r, base: workflow.CommandJudge{Argv: w.JudgeCommand, Dir: c.opts.Root, Timeout: w.JudgeTimeout.Std()}}
	case config.JudgeAgent:
		return workflow.AgentJudge{Agent: c.agent(r, workflow.JudgeStep, workflow.RoleJudge, w.JudgeLane)}
	}
	return workflow.ReviewerApproved{}
}

// stepAgent is a lane seen by the workflow: running it is running one
// step of r on the lane, with everything a step has (lane slot, leases,
// heartbeat, restarts, hooks).
type stepAgent struct {
	c    *Controller
	r    *run
	name string
	role workflow.Role
	lane string
}

func (c *Controller) agent(r *run, name string, role workflow.Role, lane string) *stepAgent {
	return &stepAgent{c: c, r: r, name: name, role: role, lane: lane}
}

func (a *stepAgent) Name() string        { return a.name }
func (a *stepAgent) Role() workflow.Role { return a.role }

// Run implements workflow.Agent.
func (a *stepAgent) Run(ctx context.Context, inv workflow.Invocation) (workflow.Output, error) {
	return a.c.runStep(ctx, a.r, inv, a.lane)
}

// stepError is how a step that did not finish ends the workflow.
type stepError struct {
	out    outcome
	reason string
}

func (e *stepError) Error() string { return "step ended: " + e.reason }

// stepRecord is what the pipeline keeps of a finished step.
type stepRecord struct {
	Text     string                  `json:"text,omitempty"`
	Verdict  *workflow.Verdict       `json:"verdict,omitempty"`
	Decision *workflow.JudgeDecision `json:"decision,omitempty"`
}

// runMemory keeps a run's finished steps in its pipeline, which is
// written to disk before the workflow goes on: a restarted controller
// recalls them and never runs a finished step again.
type runMemory struct {
	c *Controller
	r *run
}

// Recall implements workflow.Memory.
func (m runMemory) Recall(stepID string) (rec workflow.Record, ok bool) {
	m.c.do(func(*loopState) { rec, ok = recall(m.r.pipeline.RoleLifecycle, stepID) })
	return rec, ok
}

// recall is what lc says of step stepID. Called on the state loop: lc
// is a run's, changed in place.
func recall(lc ledger.Lifecycle, stepID string) (workflow.Record, bool) {
	if lc.Get("step:"+stepID) != stepCompleted {
		done, _ := strconv.Atoi(lc.Get(keyDoneThrough))
		if n := iterationOf(stepID); n == 0 || n >= done {
			return workflow.Record{}, false
		}
		// An archived iteration: finished, its judge said to go on.
		return workflow.Record{Decision: &workflow.JudgeDecision{Code: workflow.JudgeChangesRequested}}, true
	}
	var rec stepRecord
	if raw := lc.Get(keyOutput + stepID); raw != "" {
		_ = json.Unmarshal([]byte(raw), &rec)
	}
	return workflow.Record{Output: workflow.Output{Text: rec.Text, Verdict: rec.Verdict}, Decision: rec.Decision}, true
}

// outputKeep bounds the text a finished step keeps in the pipeline.
const outputKeep = 400

// opStepRecorded records what a finished step said (payload: role,
// record) when no STEP_COMPLETED carries it: a built-in judge's decision,
// an agent judge's decision after its step. The instruction index keeps
// it for a restart.
const opStepRecorded = string(vocab.OpStepRecorded)

// Remember implements workflow.Memory: the step's record is in the log
// when it returns (in its STEP_COMPLETED, or in STEP_RECORDED), durable
// before anything recorded after it (see recordWritten), and the
// pipeline file follows soon.
func (m runMemory) Remember(stepID string, role workflow.Role, rec workflow.Record) error {
	record, changed, err := m.c.rememberStep(m.r, stepID, role, rec)
	if err != nil || !changed {
		return err
	}
	var taskID, runID string
	m.c.do(func(*loopState) { taskID, runID = m.r.pipeline.TaskID, m.r.pipeline.RunID })
	m.c.recordWritten(m.c.events.system(taskID, runID, stepID, ledger.SeverityInfo, opStepRecorded,
		"role", string(role), "record", record))
	return nil
}

// rememberStep records a finished step in r's pipeline, which the
// document writer writes soon, and returns the record the log keeps of
// it, and whether it was new. The step's worker calls it before its
// STEP_COMPLETED, which carries the record: the instruction index keeps
// it, so a step the log calls completed is never run again after a
// crash and what it said is not lost. The workflow's Remember then
// records the same again, with the judge's decision if any.
func (c *Controller) rememberStep(r *run, stepID string, role workflow.Role, rec workflow.Record) (json.RawMessage, bool, error) {
	raw, err := json.Marshal(stepRecord{Text: clip(rec.Output.Text, outputKeep), Verdict: rec.Output.Verdict, Decision: rec.Decision})
	if err != nil {
		return nil, false, err
	}
	out := recordOut(raw, rec.Output.Text != "" || rec.Output.Verdict != nil || rec.Decision != nil)
	already := false
	c.do(func(*loopState) {
		p := &r.pipeline
		if p.RoleLifecycle.Get("step:"+stepID) == stepCompleted && p.RoleLifecycle.Get(keyOutput+stepID) == out {
			// Recorded already (by the step's worker, before STEP_COMPLETED).
			already = true
			return
		}
		if role == workflow.RoleJudge && LaneOfStep(p, stepID) == "" {
			// A built-in judge is no worker, but its decision is a step of
			// the iteration all the same.
			ensureStep(p, loopStep(iterationOf(stepID), workflow.RoleJudge, ""))
			p.RoleLifecycle = p.RoleLifecycle.With(keyLoopAgent, string(workflow.RoleJudge))
		}
		markStepCompleted(p, stepID)
		if out != "" {
			p.RoleLifecycle = p.RoleLifecycle.With(keyOutput+stepID, out)
		}
		if n := iterationOf(stepID); role == workflow.RoleJudge && n > 0 && rec.Decision != nil && !rec.Decision.Done {
			archiveIterations(p, n)
		}
	})
	if already {
		return raw, false, nil
	}
	c.persistSoon(r)
	return raw, true, nil
}

// recordOut is what the pipeline keeps of a step's record: nothing for a
// step that said nothing.
func recordOut(raw json.RawMessage, said bool) string {
	if !said {
		return ""
	}
	return string(raw)
}

// applyRecords brings into a resumed run's pipeline what the log says
// its finished steps said (see indexEntry.Records): the pipeline file
// may lag behind the log, or show another run. Steps the pipeline has
// already are left as they are.
func applyRecords(p *ledger.PipelineState, records map[string]json.RawMessage, doneThrough int) {
	if done, _ := strconv.Atoi(p.RoleLifecycle.Get(keyDoneThrough)); doneThrough > done {
		archiveIterations(p, doneThrough)
	}
	done, _ := strconv.Atoi(p.RoleLifecycle.Get(keyDoneThrough))
	for _, step := range slices.Sorted(maps.Keys(records)) {
		if n := iterationOf(step); n > 0 && n < done {
			continue
		}
		if p.RoleLifecycle.Get("step:"+step) == stepCompleted && p.RoleLifecycle.Get(keyOutput+step) != "" {
			continue
		}
		var rec stepRecord
		if err := json.Unmarshal(records[step], &rec); err != nil {
			continue
		}
		if p.RoleLifecycle.Get("step:"+step) != stepCompleted {
			markStepCompleted(p, step)
		}
		if out := recordOut(records[step], rec.Text != "" || rec.Verdict != nil || rec.Decision != nil); out != "" {
			p.RoleLifecycle = p.RoleLifecycle.With(keyOutput+step, out)
		}
	}
}

// keyDoneThrough is the last iteration whose judge said to go on: every
// step up to it finished.
const keyDoneThrough = "loop:done_through"

// archiveIterations records that iterations up to n finished and drops
// the steps of those before n from the pipeline (their story is in
// events.jsonl): the file stays the same size however long the loop
// runs, and iteration n keeps the review the next coder is briefed with.
func archiveIterations(p *ledger.PipelineState, n int) {
	p.RoleLifecycle = p.RoleLifecycle.With(keyDoneThrough, strconv.Itoa(n))
	keep := p.Steps[:0:0]
	for _, s := range p.Steps {
		if it := iterationOf(s.ID); it > 0 && it < n {
			p.RoleLifecycle = p.RoleLifecycle.Without("step:" + s.ID).Without(keyOutput + s.ID)
			continue
		}
		keep = append(keep, s)
	}
	if len(keep) > 0 && len(keep[0].Dependencies) > 0 {
		keep[0].Dependencies = []string{}
	}
	p.Steps = keep
}

// iterationOf reads n from a loop step id "I<n>-…" (0 when none).
func iterationOf(stepID string) int {
	if len(stepID) < 2 || stepID[0] != 'I' {
		return 0
	}
	end := 1
	for end < len(stepID) && stepID[end] >= '0' && stepID[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(stepID[1:end])
	return n
}

// runFlow runs r's workflow and ends the run as it ended.
func (c *Controller) runFlow(ctx context.Context, r *run) {
	flow, done := c.flowOf(r)
	res, err := flow.Run(ctx, workflow.Task{Text: r.in.Text, Memory: runMemory{c, r}})
	done()
	if res.Dispatch != (workflow.DispatchStats{}) {
		c.log.Warn("callbacks missed events", "dropped", res.Dispatch.Dropped, "panics", res.Dispatch.Panics,
			"abandoned", res.Dispatch.Abandoned)
	}
	var se *stepError
	switch {
	case errors.As(err, &se):
		switch se.out {
		case outcomeInterrupted:
			return
		case outcomeBlocked:
			c.finish(r, ledger.StatusBlocked, se.reason)
		default:
			c.finish(r, ledger.StatusFailed, se.reason)
		}
	case err != nil:
		var stopping, cancelled bool
		c.do(func(st *loopState) {
			stopping, cancelled = st.stopping, r.cancelled
		})
		switch {
		case cancelled:
			c.finish(r, ledger.StatusFailed, ReasonCancelled)
		case stopping:
			// Not a verdict on the work: the next controller resumes it.
		default:
			c.log.Error("workflow", "message_id", r.in.MessageID, "err", err)
			c.finish(r, ledger.StatusFailed, ReasonWorkflowError)
		}
	case res.Blocked:
		c.finish(r, ledger.StatusBlocked, res.Code)
	default:
		if c.reviewFlow(ctx, r, res) {
			c.runFlow(ctx, r) // rejected in a loop: the next iteration
		}
	}
}

// reopenLoop prepares a blocked loop for a person's retry: after
// max_iterations it grants max more iterations; after an escalation it
// reopens the last iteration's steps so that they run again.
func reopenLoop(p *ledger.PipelineState, max int) {
	switch p.RoleLifecycle.Get("route:last_reason") {
	case strings.ToLower(workflow.ReasonMaxIterations):
		extra, _ := strconv.Atoi(p.RoleLifecycle.Get(keyLoopExtra))
		p.RoleLifecycle = p.RoleLifecycle.With(keyLoopExtra, strconv.Itoa(extra+max))
	case strings.ToLower(workflow.ReasonEscalated):
		n := iterationOf(p.CurrentStep)
		for _, s := range p.Steps {
			if n > 0 && iterationOf(s.ID) == n {
				p.RoleLifecycle = p.RoleLifecycle.With("step:"+s.ID, stepRetryRequested)
			}
		}
	}
}
