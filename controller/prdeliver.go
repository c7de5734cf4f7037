package controller

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/vocab"
)

// OpPullRequest: an accepted change was delivered as a pull request,
// or a merge request on GitLab (payload: url, number, created, state,
// forge, repo, remote, branch, base_branch, tip). Recorded before ACCEPTANCE_PASSED, which names the URL too.
const OpPullRequest = string(vocab.OpPullRequest)

// Lifecycle keys of the pull request (or GitLab merge request) a run's
// accepted change became: its URL and number, the forge, repository
// and REST root it is on and the commit pushed, so that status can show
// it and read its CI status back, and a later reject can read its
// review comments.
const (
	KeyPullRequest       = "pr:url"
	KeyPullRequestRepo   = "pr:repo"
	KeyPullRequestAPI    = "pr:api"
	KeyPullRequestHead   = "pr:head"
	KeyPullRequestForge  = "pr:forge"
	KeyPullRequestNumber = "pr:number"
)

// deliversPR reports whether the change of step (key: the step, or
// runTreeKey for a run that shares one worktree, whose change is the
// coder's) is delivered as a pull request. Called on the state loop.
func (c *Controller) deliversPR(p *ledger.PipelineState, step, key string) bool {
	name := LaneOfStep(p, step)
	if key == runTreeKey && c.cfg.Workflow.Coder != "" {
		name = c.cfg.Workflow.Coder
	}
	l, ok := c.cfg.Lane(name)
	return ok && l.DeliversPR()
}

// acceptedPR delivers an accepted change as a pull request: the work
// the agent left is committed on the step's branch (as a merge would
// have it), the branch is pushed to [worktrees] remote, and the pull
// request of that branch is found or opened on GitHub (a merge request
// on GitLab: see prTarget). Every step can
// be repeated: an accept retried after a crash or a refusal pushes the
// same commits again and finds the pull request it opened, so there is
// never a second. The run is DONE only once the pull request exists; a
// push or GitHub failure is recorded (MERGE_REFUSED with PR_PUSH_FAILED,
// PR_OPEN_FAILED or PR_NOT_CONFIGURED) and the change goes on waiting
// for review. The base branch is never touched.
func (c *Controller) acceptedPR(ctx context.Context, r *run, step, key string, tree *stepTree, message, title, body string) (outcome, string, bool) {
	var p ledger.PipelineState
	c.do(func(*loopState) {
		p = r.pipeline
	})
	w := tree.wt
	author, err := gitwork.ParseAuthor(c.cfg.Worktrees.CommitAuthor)
	if err != nil {
		c.refused(p, step, w, refusal{code: ReasonMergeFailed}, err, "")
		return 0, "", false
	}
	d, err := tree.repo.Prepare(ctx, w, gitwork.DeliverOptions{CommitMessage: message, Author: author})
	if err != nil {
		c.refused(p, step, w, gitRefusal(err), err, d.Committed)
		return 0, "", false
	}
	remote := c.cfg.Worktrees.Remote
	if remote == "" {
		remote = config.DefaultRemote
	}
	target, err := c.prTarget(ctx, tree.repo, remote)
	if err != nil {
		c.refused(p, step, w, refusal{code: ReasonPRNotConfigured}, err, d.Committed, "remote", remote)
		return 0, "", false
	}
	if err := tree.repo.Push(ctx, remote, w.Branch); err != nil {
		c.refused(p, step, w, refusal{code: ReasonPRPushFailed}, redacted(err, target.Token), d.Committed, "remote", remote)
		return 0, "", false
	}
	prs, err := outbox.OpenChangeRequests(target)
	var pr *outbox.PullRequest
	created := false
	if err == nil {
		pr, created, err = prs.Ensure(ctx, outbox.NewPull{Title: title, Body: body, Head: w.Branch, Base: w.BaseBranch})
	}
	if err != nil {
		c.refused(p, step, w, refusal{code: ReasonPROpenFailed}, redacted(err, target.Token), d.Committed,
			"remote", remote, "repo", target.Repo)
		return 0, "", false
	}
	c.record(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, OpPullRequest,
		"url", pr.HTMLURL, "number", pr.Number, "created", created, "state", pr.State, "forge", target.Service, "repo", target.Repo,
		"remote", remote, "branch", w.Branch, "base_branch", w.BaseBranch, "tip", d.Tip))
	c.record(c.events.typed(p.TaskID, p.RunID, step, ledger.EventAcceptancePassed, ledger.SeverityInfo,
		"criteria", []string{"the person accepted the change", "pull request " + pr.HTMLURL + " holds it"},
		"pull_request", pr.HTMLURL, "branch", w.Branch, "base_branch", w.BaseBranch, "remote", remote,
		"committed", d.Committed, "tip", d.Tip, "detached", d.Detached))
	c.do(func(*loopState) {
		r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.Without(keyRejected+key).Without(keyReview+key).
			With(KeyPullRequest, pr.HTMLURL).With(KeyPullRequestRepo, target.Repo).With(KeyPullRequestAPI, target.APIURL).
			With(KeyPullRequestHead, d.Tip).With(KeyPullRequestForge, target.Service).
			With(KeyPullRequestNumber, strconv.FormatInt(pr.Number, 10))
	})
	// The worktree stays: its branch is the pull request's, and the
	// person may build on it after the pull request's own review.
	return outcomeDone, "", true
}

// userinfo matches the credentials of a URL ("https://user:secret@").
var userinfo = regexp.MustCompile(`(://)[^/@\s]+@`)

// redacted is err's text without token and without credentials written
// into a URL (a remote configured as https://x-access-token:…@github.com
// shows them in git's errors): what reaches the ledger and the window.
func redacted(err error, token string) error {
	s := err.Error()
	if token != "" {
		s = strings.ReplaceAll(s, token, "***")
		s = strings.ReplaceAll(s, url.QueryEscape(token), "***")
	}
	return errors.New(userinfo.ReplaceAllString(s, "${1}***@"))
}
