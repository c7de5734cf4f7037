package controller

import (
	"context"
	"slices"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// criterionNoChange is the text of CriterionNoChange: no person was
// asked, and none needed to be.
const criterionNoChange = "the step's worktree holds no change against its base"

// unchanged ends, without a review, the review of a worktree that holds
// no change against its base (see gitwork.Repo.Unchanged): an agent that
// rightly changed nothing (a question answered, a review with nothing to
// fix) completes, and its run can end DONE, instead of waiting for an
// /accept that would deliver nothing. It records ACCEPTANCE_PASSED with
// no_change, marks the step in the pipeline (delivery:no_change, which
// the window and status show) and removes the worktree when that loses
// nothing (ignored files keep it). ok is false when the worktree holds a
// change, or when that could not be told: the person reviews it then.
//
// A step already marked (a successor resuming after the mark was
// written) completes again without a second record.
func (c *Controller) unchanged(ctx context.Context, r *run, step, key string, tree *stepTree) bool {
	var marked bool
	c.do(func(*loopState) {
		marked = slices.Contains(workflow.ProgressOf(r.pipeline.RoleLifecycle.Get).NoChange, step)
	})
	if marked {
		c.settleNoChange(r, step, key)
		return true
	}
	same, err := tree.repo.Unchanged(ctx, tree.wt)
	if err != nil {
		c.log.Warn("look for a step's change", "step", step, "path", tree.wt.Path, "err", err)
	}
	if !same {
		return false
	}
	c.settleNoChange(r, step, key)
	// The mark first, on disk: a successor that finds it never records
	// the acceptance twice, nor asks about a worktree already removed.
	c.persist(r)
	var p ledger.PipelineState
	c.do(func(*loopState) {
		p = r.pipeline
	})
	w := tree.wt
	c.recordWritten(c.events.typed(p.TaskID, p.RunID, step, ledger.EventAcceptancePassed, ledger.SeverityInfo,
		"criteria", []string{criterionNoChange}, "criterion", CriterionNoChange, "no_change", true, "key", key,
		"branch", w.Branch, "base_branch", w.BaseBranch, "base", w.Base))
	c.cleanTree(ctx, r, step, tree)
	return true
}

// settleNoChange marks step as one that changed nothing and ends a
// review that was pending for key (restored after a restart). Its
// state is completed, as that of a step whose change was accepted.
func (c *Controller) settleNoChange(r *run, step, key string) {
	c.do(func(*loopState) {
		p := &r.pipeline
		lc := p.RoleLifecycle
		if steps := workflow.ProgressOf(lc.Get).NoChange; !slices.Contains(steps, step) {
			lc = lc.With(workflow.KeyNoChange, strings.Join(append(steps, step), ","))
		}
		if lc.Get("step:"+step) == stepReviewPending {
			lc = lc.With("step:"+step, stepCompleted)
		}
		p.RoleLifecycle = lc.Without(keyReview+key).Without(keyRejected+key).
			With("route:last_node", "accept").With("route:last_reason", "no_change")
		if p.Status == ledger.StatusAccept {
			p.Status = ledger.StatusExecute
		}
	})
}
