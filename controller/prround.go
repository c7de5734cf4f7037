package controller

import (
	"context"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
)

// prRound is a person's /reject of a run that ended DONE with its
// change delivered as a pull request (merge request): the reason the
// next iteration's coder is told beside the review's comments.
type prRound struct {
	reason string
}

// prRoundOpen reports whether a /reject sends r round again: a loop
// that ended DONE with its shared worktree's change delivered as a pull
// request, whose branch is still known. Any other DONE run has nothing
// to reject. Called on the state loop.
func (c *Controller) prRoundOpen(r *run) bool {
	lc := r.pipeline.RoleLifecycle
	return r.final == ledger.StatusDone && r.review == nil && r.round == nil &&
		c.cfg.Workflow.Flow() == config.FlowLoop &&
		lc.Get(KeyPullRequestNumber) != "" && lc.Get(KeyPullRequestForge) != "" &&
		lc.Get(keyTreePath+runTreeKey) != "" && lc.Get(keyTreeBranch+runTreeKey) != ""
}

// anotherRound starts the round a person's /reject asked of a run whose
// change is an open pull request (see prRoundOpen): the run goes on, as
// a retry would, from beginRound. A second reject that arrives while the
// first is starting finds the run no longer DONE and does nothing.
func (c *Controller) anotherRound(r *run, reason string) {
	<-r.done
	open := false
	c.do(func(st *loopState) {
		if open = c.prRoundOpen(r); !open {
			return
		}
		r.round = &prRound{reason: reason}
		r.final, r.endReason, r.cancelled, r.attempt, r.tree, r.inFolder = "", "", false, 0, nil, nil
		r.restarts = heal.Restarts{}
		r.done = make(chan struct{})
		st.current = r
	})
	if open {
		c.start(r)
	}
}

// beginRound turns the round a person asked for into the loop's next
// iteration, before the workflow goes on: the pull request's review
// comments are read (readPRReview), the reject is recorded with the
// person's reason (ACCEPTANCE_FAILED), and the last iteration's review
// becomes "changes requested" (reopenForReject). The worktree follows
// from the branch: the flow's next step reuses it, or checks the pushed
// branch out again where it was removed (gitwork.Repo.Ensure).
func (c *Controller) beginRound(ctx context.Context, r *run) {
	var ask *prRound
	var p *ledger.PipelineState
	var step string
	var n int
	var tree *stepTree
	c.do(func(*loopState) {
		ask = r.round
		r.round = nil
		p = &r.pipeline
		step, n = p.CurrentStep, lastIteration(p)
		tree, _ = recordedTree(p, runTreeKey)
	})
	if ask == nil || tree == nil {
		return
	}
	c.readPRReview(ctx, r, step, runTreeKey, tree)
	c.rejected(r, step, runTreeKey, tree, ask.reason)
	c.reopenForReject(r, max(n, 1))
}

// lastIteration is the highest loop iteration the pipeline's steps and
// route name. Called on the state loop.
func lastIteration(p *ledger.PipelineState) int {
	n := iterationOf(p.CurrentStep)
	for _, s := range p.Steps {
		n = max(n, iterationOf(s.ID))
	}
	return n
}
