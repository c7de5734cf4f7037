package controller

import (
	"context"
	"encoding/json"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/vocab"
)

// OpPullRequestReview: a rejected change's pull request (or merge
// request) had its review comments read as the next iteration's
// findings (payload: url, number, forge, findings; error when the
// forge could not be read, the reject going on without them).
const OpPullRequestReview = string(vocab.OpPullRequestReview)

// keyPRFindings + key holds, as a JSON list, the findings read from the
// review of the pull request of key's change at a reject, until the
// next iteration's review takes them (takePRFindings).
const keyPRFindings = "pr:findings:"

// prReviewTimeout bounds reading a review at a reject: the person's
// next round does not wait on a forge that does not answer.
const prReviewTimeout = 30 * time.Second

// readPRReview is the first thing a reject of a loop's change does when
// its lane delivers pull requests: the pull request (merge request) of
// the change's branch, when one is open or merged, has its review
// comments read (daokit's own left out, bounded, in a fixed order: see
// outbox.ReviewFindings) and kept for reopenForReject, which hands them
// to the next iteration's coder beside the person's reason. No pull
// request, no findings; a forge that cannot be read is recorded and
// the reject goes on.
func (c *Controller) readPRReview(ctx context.Context, r *run, step, key string, tree *stepTree) {
	var p ledger.PipelineState
	var wanted bool
	c.do(func(*loopState) {
		p = r.pipeline
		wanted = key == runTreeKey && c.cfg.Workflow.Flow() == config.FlowLoop && c.deliversPR(&r.pipeline, step, key)
	})
	if !wanted {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, prReviewTimeout)
	defer cancel()
	remote := c.cfg.Worktrees.Remote
	if remote == "" {
		remote = config.DefaultRemote
	}
	target, err := c.prTarget(ctx, tree.repo, remote)
	if err != nil {
		return // PR_NOT_CONFIGURED: nothing was ever opened from here
	}
	var pr *outbox.PullRequest
	var comments []outbox.ReviewComment
	crs, err := outbox.OpenChangeRequests(target)
	if err == nil {
		pr, err = crs.Find(ctx, tree.wt.Branch)
	}
	if err == nil && pr == nil {
		return
	}
	if err == nil {
		comments, err = crs.ReviewComments(ctx, pr.Number)
	}
	if err != nil {
		c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, OpPullRequestReview,
			"forge", target.Service, "repo", target.Repo, "branch", tree.wt.Branch, "error", firstLine(redacted(err, target.Token).Error())))
		return
	}
	findings := outbox.ReviewFindings(comments)
	raw, _ := json.Marshal(findings)
	c.do(func(*loopState) {
		r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.With(keyPRFindings+key, string(raw))
	})
	c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, OpPullRequestReview,
		"url", pr.HTMLURL, "number", pr.Number, "forge", target.Service, "repo", target.Repo, "branch", tree.wt.Branch,
		"findings", findings))
}

// takePRFindings returns the findings readPRReview kept for key's
// change and forgets them: one iteration is told them once. Called
// on the state loop.
func takePRFindings(p *ledger.PipelineState, key string) []string {
	var out []string
	_ = json.Unmarshal([]byte(p.RoleLifecycle.Get(keyPRFindings+key)), &out)
	p.RoleLifecycle = p.RoleLifecycle.Without(keyPRFindings + key)
	return out
}
