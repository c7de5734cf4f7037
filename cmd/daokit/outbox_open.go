package main

import (
	"errors"
	"strings"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// outboxProblem says in the reader's language why the outbox database
// was refused (missing, emptied, corrupt) and what to do; other errors
// as they are.
func (a *app) outboxProblem(err error) string {
	var ge *outbox.GitHubError
	if errors.As(err, &ge) {
		return a.githubProblem(ge)
	}
	var oe *outbox.OpenError
	if !errors.As(err, &oe) {
		return err.Error()
	}
	return a.t("team.lead_exit."+oe.Code(), "Detail", roster.ExitOf("", 0, err).Detail)
}

// outboxFailure is the CLI error of an outbox that could not be opened:
// E_OUTBOX_MISSING, E_OUTBOX_EMPTY or E_OUTBOX_CORRUPT for a refused
// database, E_GITHUB_<problem> or E_GITLAB_<problem> for a set-up
// problem of those backends, E_OUTBOX
// otherwise.
func (a *app) outboxFailure(err error) error {
	var oe *outbox.OpenError
	if errors.As(err, &oe) {
		return failf("E_"+oe.Code(), a.outboxProblem(err))
	}
	var ge *outbox.GitHubError
	if errors.As(err, &ge) {
		return failf("E_"+ge.Code, a.githubProblem(ge))
	}
	return failf("E_OUTBOX", err.Error())
}

// githubProblem words a GitHub or GitLab set-up problem in the
// reader's language.
func (a *app) githubProblem(ge *outbox.GitHubError) string {
	api := ge.API
	if api == "" {
		api = outbox.DefaultGitHubAPI
		if strings.HasPrefix(ge.Code, "GITLAB_") {
			api = outbox.DefaultGitLabAPI
		}
	}
	return a.t("team.github."+ge.Code, "Repo", ge.Repo, "API", api, "Detail", ge.Detail)
}
