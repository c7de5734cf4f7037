package controller

import (
	"context"
	"errors"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// Operations of the review SYSTEM events.
const (
	// OpReviewPending: a step in a worktree finished and waits for the
	// person's /accept or /reject.
	OpReviewPending = string(vocab.OpReviewPending)
	// OpMergeRefused: an accept could not merge (reason_code MERGE_CONFLICT
	// with the files, or MERGE_FAILED); nothing was forced, and the step
	// still waits for review.
	OpMergeRefused = string(vocab.OpMergeRefused)
)

// Lifecycle values and keys of a review.
const (
	stepReviewPending = string(vocab.StepReviewPending)
	// runTreeKey stands for a step id where a whole run shares one
	// worktree (a single pass or a loop: the reviewer reads the coder's
	// change, the next iteration builds on it) and is reviewed once, after
	// the judge; keyReview + runTreeKey marks that review pending.
	runTreeKey = "run"
	keyReview  = "review:"
	// keyRejected + step holds the reason of the last reject, handed to
	// the step's next attempt.
	keyRejected = "rejected:"
)

// verdict is the person's answer to a review, forwarded by a window.
type verdict struct {
	accept bool
	reason string
}

// reviewPending reports whether step waits for a person's verdict (also
// after a controller restart). Called on the state loop.
func reviewPending(p *ledger.PipelineState, step string) bool {
	return p.RoleLifecycle.Get("step:"+step) == stepReviewPending || p.RoleLifecycle.Get(keyReview+runTreeKey) == stepReviewPending
}

// markReview puts the run in ACCEPT, waiting for the person to review
// the change of key (a step, or runTreeKey). A run's review is kept apart
// from its steps' states, which say they completed.
func markReview(p *ledger.PipelineState, step, key string) {
	p.Status = ledger.StatusAccept
	mark := "step:" + step
	if key != step {
		mark = keyReview + key
	}
	p.RoleLifecycle = p.RoleLifecycle.With(mark, stepReviewPending).
		With("route:last_node", "accept").With("route:last_reason", "review_pending")
	setRoute(p, step, p.RoleLifecycle.Get(keyActiveLane), NextReview)
}

// awaitReview waits for the person's verdict on step's change and carries
// it out (a worktree that holds no change completes without one: see
// unchanged): accept merges into the base branch (never forced; a refused
// merge is reported and the step keeps waiting), reject ends the run
// FAILED with the reason and keeps the branch.
//
// key is the worktree's key: the step itself, or runTreeKey for a run
// whose steps share one worktree (step is then where the route stands).
func (c *Controller) awaitReview(ctx context.Context, r *run, step, key string) (outcome, string) {
	p := &r.pipeline
	var tree *stepTree
	c.do(func(*loopState) {
		if tree = r.tree; tree == nil {
			tree, _ = recordedTree(p, key)
		}
	})
	if tree == nil {
		c.stepFailed(r, step, LaneOfStep(p, step), ReasonWorktree, ledger.ObjectOf("error", "no worktree recorded for the step"))
		return outcomeFailed, ReasonWorktree
	}
	if c.unchanged(ctx, r, step, key, tree) {
		return outcomeDone, ""
	}
	var review chan verdict
	var taskID, runID string
	c.do(func(*loopState) {
		markReview(p, step, key)
		review = r.review // made at restore when a verdict may come first
		if review == nil {
			review = make(chan verdict, 1)
			r.review = review
		}
		taskID, runID = p.TaskID, p.RunID
	})
	defer func() {
		c.do(func(*loopState) {
			r.review = nil
		})
	}()
	// The pipeline first: whoever reads REVIEW_PENDING finds it in ACCEPT.
	c.persist(r)
	c.record(c.events.system(taskID, runID, step, ledger.SeverityInfo, OpReviewPending,
		"path", tree.wt.Path, "branch", tree.wt.Branch, "base_branch", tree.wt.BaseBranch, "base", tree.wt.Base,
		"repo", tree.repo.Top, "key", key))
	route := p.Route()
	c.notify(relay.Notice{Kind: relay.NoticeRoute, Route: &route})
	for {
		select {
		case <-ctx.Done():
			return c.stopped(r, ReasonCancelled)
		case v := <-review:
			if !v.accept {
				c.readPRReview(ctx, r, step, key, tree)
				return c.rejected(r, step, key, tree, v.reason)
			}
			if out, reason, ok := c.accepted(ctx, r, step, key, tree); ok {
				return out, reason
			}
		}
	}
}

// rejected records ACCEPTANCE_FAILED with the person's reason; the branch
// and its worktree stay, and the reason goes to the step's next attempt.
func (c *Controller) rejected(r *run, step, key string, tree *stepTree, reason string) (outcome, string) {
	var p *ledger.PipelineState
	var note string
	c.do(func(*loopState) {
		p = &r.pipeline
		note = reason
		if note == "" {
			note = "-"
		}
		p.RoleLifecycle = p.RoleLifecycle.With(keyRejected+key, note).Without(keyReview + key)
	})
	c.record(c.events.typed(p.TaskID, p.RunID, step, ledger.EventAcceptanceFailed, ledger.SeverityWarn,
		"reason_code", ReasonRejected, "reason", reason, "branch", tree.wt.Branch, "path", tree.wt.Path, "kept", true))
	return outcomeFailed, ReasonRejected
}

// accepted delivers the step's change: merged into its base (see
// deliver), or as a pull request when the step's lane says deliver =
// "pr" (see acceptedPR). ok is false when nothing was delivered: the
// refusal is recorded and the step goes on waiting.
func (c *Controller) accepted(ctx context.Context, r *run, step, key string, tree *stepTree) (outcome, string, bool) {
	var p ledger.PipelineState
	var summary, instruction string
	var asPR bool
	var body string
	c.do(func(*loopState) {
		p = r.pipeline
		summary, instruction = reviewSummary(r, step), r.in.Text
		asPR = c.deliversPR(&r.pipeline, step, key)
		body = ""
		if asPR {
			body = prBody(c.loc, &r.pipeline, instruction, step)
		}
	})
	message := commitMessage(p, instruction, step, summary)
	if asPR {
		return c.acceptedPR(ctx, r, step, key, tree, message, prTitle(p, instruction, step), body)
	}
	w := tree.wt
	d, err := c.deliver(ctx, p, step, tree, message)
	if err != nil {
		c.refused(p, step, w, gitRefusal(err), err, d.Committed)
		return 0, "", false
	}
	c.record(c.events.typed(p.TaskID, p.RunID, step, ledger.EventAcceptancePassed, ledger.SeverityInfo,
		"criteria", []string{"the person accepted the change", "it merged into " + w.BaseBranch + " without conflict"},
		"branch", w.Branch, "base_branch", w.BaseBranch, "commit", d.Commit, "fast_forward", d.FastForward, "already", d.Already,
		"committed", d.Committed, "tip", d.Tip, "detached", d.Detached))
	c.do(func(*loopState) {
		r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.Without(keyRejected + key).Without(keyReview + key)
	})
	c.cleanTree(ctx, r, step, tree)
	return outcomeDone, "", true
}

// refusal is why an accept delivered nothing: a reason code and, for a
// conflict, the files.
type refusal struct {
	code  string
	files []string
}

// gitRefusal words an error of gitwork's delivery as a refusal.
func gitRefusal(err error) refusal {
	code, files := ReasonMergeFailed, []string(nil)
	var ce *gitwork.ConflictError
	switch {
	case errors.As(err, &ce):
		code, files = ReasonMergeConflict, ce.Files
	case errors.Is(err, gitwork.ErrNotFastForward):
		code = ReasonMergeNotFF
	case errors.Is(err, gitwork.ErrNothingToDeliver):
		code = ReasonNothingToDeliver
	case errors.Is(err, gitwork.ErrDiverged):
		code = ReasonDiverged
	}
	return refusal{code: code, files: files}
}

// refused records an accept that delivered nothing (MERGE_REFUSED with
// the reason code) and tells the window, in the person's language; the
// change goes on waiting for review. err's text must hold no secret.
func (c *Controller) refused(p ledger.PipelineState, step string, w gitwork.Worktree, why refusal, err error, committed string, kv ...any) {
	c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, OpMergeRefused,
		append([]any{"reason_code", why.code, "files", why.files, "error", firstLine(err.Error()), "branch", w.Branch, "base_branch", w.BaseBranch,
			"committed", committed}, kv...)...))
	c.notify(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &relay.OutputLine{TaskID: p.TaskID, RunID: p.RunID,
		StepID: step, Stream: "stderr", Line: ReasonText(c.loc, why.code), Reason: why.code}})
}

// deliver commits what the agent left uncommitted in the worktree, takes
// the commits it made on a detached HEAD, and merges the lot into the
// base branch (gitwork.Repo.Deliver).
func (c *Controller) deliver(ctx context.Context, p ledger.PipelineState, step string, tree *stepTree, message string) (gitwork.Delivery, error) {
	author, err := gitwork.ParseAuthor(c.cfg.Worktrees.CommitAuthor)
	if err != nil {
		return gitwork.Delivery{}, err
	}
	return tree.repo.Deliver(ctx, tree.wt, gitwork.DeliverOptions{
		Mode:          mergeMode(c.cfg.Worktrees.Merge),
		CommitMessage: message,
		MergeMessage:  "daokit: accept " + p.TaskID + "/" + p.RunID + "/" + step,
		Author:        author,
	})
}

// cleanTree removes an accepted step's worktree when that loses nothing
// (merged and clean); otherwise it stays, and the reasons are recorded.
func (c *Controller) cleanTree(ctx context.Context, r *run, step string, tree *stepTree) {
	p := r.pipeline
	e := gitwork.Entry{Path: tree.wt.Path, Branch: tree.wt.Branch}
	err := tree.repo.Remove(ctx, e, tree.wt.BaseBranch, false)
	var ke *gitwork.KeptError
	switch {
	case err == nil:
		c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, OpWorktreeRemoved,
			"path", e.Path, "branch", e.Branch))
	case errors.As(err, &ke):
		kept := make([]string, len(ke.Reasons))
		for i, k := range ke.Reasons {
			kept[i] = string(k)
		}
		c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, OpWorktreeKept,
			"path", e.Path, "branch", e.Branch, "kept", kept))
	default:
		c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, OpWorktreeKept,
			"path", e.Path, "branch", e.Branch, "error", firstLine(err.Error())))
	}
}

func mergeMode(m string) gitwork.MergeMode {
	if m == "" {
		return gitwork.MergeFF
	}
	return gitwork.MergeMode(m)
}

// deliver hands a verdict to the run waiting for it. Called on the state loop; checkControl made sure a review is pending.
func (r *run) deliver(v verdict) {
	select {
	case r.review <- v:
	default: // a verdict is already on its way
	}
}
