package outbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
)

// GitHub is the outbox on a GitHub repository's issues (a Forge that
// speaks GitHub's REST API).
type GitHub = Forge

// GitHubConfig configures OpenGitHub.
type GitHubConfig = ForgeConfig

// DefaultGitHubAPI is the public GitHub REST API; GitHub Enterprise
// Server answers at https://HOST/api/v3.
const DefaultGitHubAPI = "https://api.github.com"

// The errors of OpenGitHub, OpenGitLab and their checks that daokit
// words for people.
var (
	// ErrNoToken: the service's token is not in the environment
	// (GITHUB_TOKEN or GH_TOKEN; GITLAB_TOKEN).
	ErrNoToken = errors.New("outbox: no token (GITHUB_TOKEN or GH_TOKEN; GITLAB_TOKEN)")
	// ErrBadRepo: repo is not "owner/name" (GitLab: "group/name").
	ErrBadRepo = errors.New("outbox: repo must be owner/name")
)

var repoPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}$`)

// ValidRepo reports whether repo is "owner/name" as GitHub spells them.
func ValidRepo(repo string) bool { return repoPattern.MatchString(repo) }

// TokenFrom is the GitHub token of the environment getenv reads:
// GITHUB_TOKEN, else GH_TOKEN.
func TokenFrom(getenv func(string) string) string {
	if t := getenv("GITHUB_TOKEN"); t != "" {
		return t
	}
	return getenv("GH_TOKEN")
}

// githubDialect speaks GitHub's REST API for repo.
func githubDialect(repo string) dialect {
	return dialect{service: "github", root: "/repos/" + repo, header: func(h http.Header, token string) {
		h.Set("Accept", "application/vnd.github+json")
		h.Set("X-GitHub-Api-Version", "2022-11-28")
		if token != "" {
			h.Set("Authorization", "Bearer "+token)
		}
	}}
}

func newGitHubClient(cfg ForgeConfig) *apiClient {
	base := cfg.APIURL
	if base == "" {
		base = DefaultGitHubAPI
	}
	return newAPIClient(githubDialect(cfg.Repo), base, cfg.Token, cfg.HTTP)
}

// OpenGitHub opens the outbox of cfg.Repo through its mirror, making
// the mirror when there is none (it is rebuilt from GitHub). A writer
// needs the token; it asks GitHub once who the token's user is. A
// set-up problem is a *GitHubError.
func OpenGitHub(ctx context.Context, cfg GitHubConfig) (*GitHub, error) {
	g, err := openGitHub(ctx, cfg)
	if ge := AsGitHubError(err, cfg.Repo, cfg.APIURL); ge != nil {
		return nil, ge
	}
	return g, err
}

func openGitHub(ctx context.Context, cfg GitHubConfig) (*GitHub, error) {
	if !ValidRepo(cfg.Repo) {
		return nil, fmt.Errorf("%w: %q", ErrBadRepo, cfg.Repo)
	}
	c := newGitHubClient(cfg)
	return openForge(ctx, cfg, c, &githubAPI{c: c})
}
