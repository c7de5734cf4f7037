package outbox

import (
	"context"
	"net/http"
)

// The codes of a GitLab set-up problem (GitHubError.Code), stable: the
// CLI words them as team.github.<code> in the person's language.
const (
	GitLabNoToken     = "GITLAB_NO_TOKEN"
	GitLabBadRepo     = "GITLAB_BAD_REPO"
	GitLabBadToken    = "GITLAB_BAD_TOKEN"
	GitLabNoRepo      = "GITLAB_NO_REPO"
	GitLabNoIssues    = "GITLAB_NO_ISSUES"
	GitLabReadOnly    = "GITLAB_READ_ONLY"
	GitLabUnreachable = "GITLAB_UNREACHABLE"
	GitLabRateLimited = "GITLAB_RATE_LIMITED"
)

// AsGitLabError classifies an error of OpenGitLab or CheckGitLab as
// AsGitHubError does, with GITLAB_ codes. Any other error gives nil.
func AsGitLabError(err error, project, api string) *GitHubError {
	if api == "" {
		api = DefaultGitLabAPI
	}
	return asForgeError(err, project, api, "GITLAB_")
}

// CheckGitLab validates cfg and asks GitLab once (GET the project): the
// token is accepted, the project is there with its issues on, and the
// token's user may set labels and assignees (Reporter or more). It
// returns a *GitHubError with a GITLAB_ code when not.
func CheckGitLab(ctx context.Context, cfg GitLabConfig) error {
	fail := func(err error) error {
		if ge := AsGitLabError(err, cfg.Repo, cfg.APIURL); ge != nil {
			return ge
		}
		return err
	}
	if !ValidProject(cfg.Repo) {
		return fail(ErrBadRepo)
	}
	if cfg.Token == "" {
		return fail(ErrNoToken)
	}
	c := forCheck(newGitLabClient(cfg))
	var p glProject
	if err := c.getJSON(ctx, c.repoPath(""), &p); err != nil {
		return fail(err)
	}
	if !p.IssuesEnabled {
		return fail(&APIError{Service: c.service, Status: http.StatusGone, Method: http.MethodGet, Path: c.repoPath(""), Message: "issues are turned off"})
	}
	level := 0
	for _, a := range []*glAccess{p.Permissions.ProjectAccess, p.Permissions.GroupAccess} {
		if a != nil {
			level = max(level, a.AccessLevel)
		}
	}
	if level < glReporter {
		return fail(&APIError{Service: c.service, Status: http.StatusForbidden, Method: http.MethodGet, Path: c.repoPath(""), Message: "the token's user may not set labels and assignees of " + cfg.Repo + " (Reporter or more)"})
	}
	return nil
}
