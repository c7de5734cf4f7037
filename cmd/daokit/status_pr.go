package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
)

// prChecksTimeout bounds the one GitHub request status makes: status
// must answer even when GitHub does not.
const prChecksTimeout = 5 * time.Second

// printPullRequest writes the pull request (or GitLab merge request)
// the run's accepted change became, and its CI status read back from
// the forge when its token is at hand (GITHUB_TOKEN or GH_TOKEN;
// GITLAB_TOKEN): one request, bounded, never retried past the bound.
func (a *app) printPullRequest(w io.Writer, p ledger.PipelineState) {
	lc := p.RoleLifecycle
	url := lc.Get(controller.KeyPullRequest)
	if url == "" {
		return
	}
	key, ci := "cli.status.pr", a.prChecks(lc)
	if lc.Get(controller.KeyPullRequestForge) == outbox.GitLabActor {
		// GitLab's words: a merge request, its token, GitLab unreachable.
		key = "cli.status.mr"
		if ci == "no_token" || ci == "unreachable" {
			ci += "_gitlab"
		}
	}
	fmt.Fprintln(w, a.t(key, "URL", url, "CI", a.t("cli.status.pr_ci."+ci)))
}

// prChecks is the pull request's combined CI status (a merge request's
// newest pipeline): success, failure, pending, none (nothing reported
// one), no_token or unreachable.
func (a *app) prChecks(lc ledger.Lifecycle) string {
	forge := lc.Get(controller.KeyPullRequestForge)
	token := outbox.ForgeTokenFrom(forge, a.getenv)
	if token == "" {
		return "no_token"
	}
	prs, err := outbox.OpenChangeRequests(outbox.PullRequestsConfig{Service: forge, Repo: lc.Get(controller.KeyPullRequestRepo),
		APIURL: lc.Get(controller.KeyPullRequestAPI), Token: token, MaxBlock: time.Second})
	if err != nil {
		return "unreachable"
	}
	ctx, cancel := context.WithTimeout(a.ctx, prChecksTimeout)
	defer cancel()
	state, err := prs.Checks(ctx, lc.Get(controller.KeyPullRequestHead))
	switch {
	case err != nil:
		return "unreachable"
	case state == "":
		return "none"
	case state == "success" || state == "failure" || state == "pending":
		return state
	}
	return "failure" // "error": GitHub's word for a status that could not run
}
