package outbox

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// The codes of a GitHub set-up problem (GitHubError.Code), stable: the
// CLI words them as team.github.<code> in the person's language.
const (
	GitHubNoToken     = "GITHUB_NO_TOKEN"
	GitHubBadRepo     = "GITHUB_BAD_REPO"
	GitHubBadToken    = "GITHUB_BAD_TOKEN"
	GitHubNoRepo      = "GITHUB_NO_REPO"
	GitHubNoIssues    = "GITHUB_NO_ISSUES"
	GitHubReadOnly    = "GITHUB_READ_ONLY"
	GitHubUnreachable = "GITHUB_UNREACHABLE"
	GitHubRateLimited = "GITHUB_RATE_LIMITED"
)

// GitHubError is a set-up problem of a GitHub or GitLab outbox: Code
// (GITHUB_* or GITLAB_*), the repository and the API root it was found
// with, and the service's own words (never the token).
type GitHubError struct {
	Code   string
	Repo   string
	API    string
	Detail string
	Err    error
}

func (e *GitHubError) Error() string {
	s := "outbox: " + e.Code + ": " + e.Repo + " at " + e.API
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap gives the cause (ErrNoToken, ErrBadRepo, an *APIError).
func (e *GitHubError) Unwrap() error { return e.Err }

// AsGitHubError classifies an error of OpenGitHub or CheckGitHub: a
// missing token or repository, a refused token, too few permissions, an
// API out of reach. Any other error gives nil.
func AsGitHubError(err error, repo, api string) *GitHubError {
	if api == "" {
		api = DefaultGitHubAPI
	}
	return asForgeError(err, repo, api, "")
}

// asForgeError classifies err as a GITHUB_ problem, or with prefix
// ("GITLAB_") instead.
func asForgeError(err error, repo, api, prefix string) *GitHubError {
	var ge *GitHubError
	if errors.As(err, &ge) {
		return ge
	}
	e := classify(err, repo, api)
	if e != nil && prefix != "" {
		e.Code = prefix + strings.TrimPrefix(e.Code, "GITHUB_")
	}
	return e
}

func classify(err error, repo, api string) *GitHubError {
	e := &GitHubError{Repo: repo, API: api, Err: err}
	var ae *APIError
	switch {
	case errors.Is(err, ErrNoToken):
		e.Code = GitHubNoToken
	case errors.Is(err, ErrBadRepo):
		e.Code = GitHubBadRepo
	case errors.As(err, &ae):
		e.Detail = ae.Message
		switch ae.Status {
		case http.StatusUnauthorized:
			e.Code = GitHubBadToken
		case http.StatusNotFound:
			e.Code = GitHubNoRepo
		case http.StatusForbidden:
			e.Code = GitHubReadOnly
		case http.StatusGone:
			e.Code = GitHubNoIssues
		case http.StatusTooManyRequests:
			e.Code = GitHubRateLimited
		default:
			return nil
		}
	default:
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) || isTransport(err) {
			e.Code, e.Detail = GitHubUnreachable, err.Error()
			return e
		}
		return nil
	}
	return e
}

func isTransport(err error) bool {
	var op interface{ Temporary() bool }
	return errors.As(err, &op)
}

// CheckGitHub validates cfg and asks GitHub once (GET the repository):
// the token is accepted, the repository is there with its issues on,
// and the token's user may write them (triage or push). It returns a
// *GitHubError when not.
func CheckGitHub(ctx context.Context, cfg GitHubConfig) error {
	fail := func(err error) error {
		if ge := AsGitHubError(err, cfg.Repo, cfg.APIURL); ge != nil {
			return ge
		}
		return err
	}
	if !ValidRepo(cfg.Repo) {
		return fail(ErrBadRepo)
	}
	if cfg.Token == "" {
		return fail(ErrNoToken)
	}
	c := forCheck(newGitHubClient(cfg))
	var r ghRepo
	if err := c.getJSON(ctx, c.repoPath(""), &r); err != nil {
		return fail(err)
	}
	if !r.HasIssues {
		return fail(&APIError{Service: c.service, Status: http.StatusGone, Method: http.MethodGet, Path: c.repoPath(""), Message: "issues are turned off"})
	}
	if p := r.Permissions; p == nil || !(p.Admin || p.Maintain || p.Push || p.Triage) {
		return fail(&APIError{Service: c.service, Status: http.StatusForbidden, Method: http.MethodGet, Path: c.repoPath(""), Message: "the token's user may only read " + cfg.Repo})
	}
	return nil
}

// forCheck makes c answer at once, as a check does: one retry, no long
// backoff; a rate limit is reported, not waited out.
func forCheck(c *apiClient) *apiClient {
	c.tries, c.backoff = 2, 500*time.Millisecond
	c.sleep = func(ctx context.Context, d time.Duration) error {
		if d > time.Second {
			return &APIError{Service: c.service, Status: http.StatusTooManyRequests, Method: http.MethodGet, Path: c.repoPath(""), Message: "rate limited"}
		}
		return sleepCtx(ctx, d)
	}
	return c
}
