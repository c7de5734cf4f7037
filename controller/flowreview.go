package controller

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// reviewFlow ends a workflow that finished: a run that shared a worktree
// waits for the person's verdict first (accept merges it, the run is
// DONE). It reports whether the run goes on: a reject inside a loop hands
// the person's reason to a next iteration (see reopenForReject); a reject
// elsewhere ends the run FAILED with the reason, kept for a retry.
func (c *Controller) reviewFlow(ctx context.Context, r *run, res workflow.Result) bool {
	var shared bool
	var step string
	c.do(func(*loopState) {
		shared = r.pipeline.RoleLifecycle.Get(keyTreePath+runTreeKey) != ""
		step = r.pipeline.CurrentStep
	})
	if !shared {
		c.finish(r, ledger.StatusDone, "")
		return false
	}
	out, reason := c.awaitReview(ctx, r, step, runTreeKey)
	switch out {
	case outcomeDone:
		c.finish(r, ledger.StatusDone, "")
	case outcomeInterrupted:
	default:
		if reason == ReasonRejected && c.cfg.Workflow.Flow() == config.FlowLoop && res.Iterations > 0 {
			c.reopenForReject(r, res.Iterations)
			return true
		}
		c.finish(r, ledger.StatusFailed, reason)
	}
	return false
}

// reopenForReject turns the person's reject of a loop's change into the
// review of its last iteration n: the reviewer's verdict becomes
// "changes requested" with the person's reason as the finding, and the
// judge's decision "go on", so the loop's next iteration (granted beyond
// max_iterations if need be) has its coder address the reason, in the
// same worktree.
func (c *Controller) reopenForReject(r *run, n int) {
	c.do(func(*loopState) {
		p := &r.pipeline
		why := p.RoleLifecycle.Get(keyRejected + runTreeKey)
		if why == "-" {
			why = ""
		}
		verdict := &workflow.Verdict{Decision: workflow.RequestChanges, Reason: c.loc.T("controller.review.rejected_verdict")}
		if why != "" {
			verdict.Findings = []string{why}
		}
		verdict.Findings = append(verdict.Findings, takePRFindings(p, runTreeKey)...)
		rid := workflow.StepID(n, "reviewer")
		var rec stepRecord
		_ = json.Unmarshal([]byte(p.RoleLifecycle.Get(keyOutput+rid)), &rec)
		rec.Verdict = verdict
		if raw, err := json.Marshal(rec); err == nil {
			p.RoleLifecycle = p.RoleLifecycle.With(keyOutput+rid, string(raw))
		}
		jid := workflow.StepID(n, workflow.JudgeStep)
		dec := stepRecord{Text: why, Decision: &workflow.JudgeDecision{Code: workflow.JudgeChangesRequested, Reason: why}}
		if raw, err := json.Marshal(dec); err == nil {
			p.RoleLifecycle = p.RoleLifecycle.With(keyOutput+jid, string(raw))
		}
		extra, _ := strconv.Atoi(p.RoleLifecycle.Get(keyLoopExtra))
		if n >= c.cfg.Workflow.MaxIterations+extra {
			p.RoleLifecycle = p.RoleLifecycle.With(keyLoopExtra, strconv.Itoa(extra+1))
		}
		p.Status = ledger.StatusExecute
	})
	c.persist(r)
}
