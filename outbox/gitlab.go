package outbox

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
)

// GitLab is the outbox on a GitLab project's issues (a Forge that
// speaks GitLab's REST API v4, on gitlab.com or a self-hosted
// instance).
type GitLab = Forge

// GitLabConfig configures OpenGitLab; Repo is the project's path
// ("group/sub/name").
type GitLabConfig = ForgeConfig

// DefaultGitLabAPI is gitlab.com's REST API; a self-hosted GitLab
// answers at https://HOST/api/v4.
const DefaultGitLabAPI = "https://gitlab.com/api/v4"

// GitLabActor is the actor of changes made on GitLab by people.
const GitLabActor = "gitlab"

// GitLabTokenEnv holds the GitLab token (a personal, group or project
// access token with the api scope): only Leads and the person's own
// commands have it, never a Worker.
const GitLabTokenEnv = "GITLAB_TOKEN"

// GitLabTokenFrom is the GitLab token of the environment getenv reads.
func GitLabTokenFrom(getenv func(string) string) string { return getenv(GitLabTokenEnv) }

// projectPattern is a GitLab project path: a namespace of one or more
// groups, then the project, each as GitLab spells a path.
var projectPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)+$`)

// ValidProject reports whether p is a GitLab project path
// ("group/sub/name"; GitLab caps a full path at 255 characters per
// part, 20 levels of subgroups).
func ValidProject(p string) bool {
	return len(p) <= 2048 && strings.Count(p, "/") <= 20 && projectPattern.MatchString(p)
}

// gitlabDialect speaks GitLab's REST API for the project at path: the
// project is addressed by its URL-encoded path, the token goes in
// PRIVATE-TOKEN.
func gitlabDialect(path string) dialect {
	return dialect{service: "gitlab", root: "/projects/" + url.PathEscape(path), header: func(h http.Header, token string) {
		h.Set("Accept", "application/json")
		if token != "" {
			h.Set("PRIVATE-TOKEN", token)
		}
	}}
}

func newGitLabClient(cfg ForgeConfig) *apiClient {
	base := cfg.APIURL
	if base == "" {
		base = DefaultGitLabAPI
	}
	return newAPIClient(gitlabDialect(cfg.Repo), base, cfg.Token, cfg.HTTP)
}

// OpenGitLab opens the outbox of the project cfg.Repo through its
// mirror, making the mirror when there is none (it is rebuilt from
// GitLab). A writer needs the token; it asks GitLab once who the
// token's user is. A set-up problem is a *GitHubError with a GITLAB_
// code.
func OpenGitLab(ctx context.Context, cfg GitLabConfig) (*GitLab, error) {
	g, err := openGitLab(ctx, cfg)
	if ge := AsGitLabError(err, cfg.Repo, cfg.APIURL); ge != nil {
		return nil, ge
	}
	return g, err
}

func openGitLab(ctx context.Context, cfg GitLabConfig) (*GitLab, error) {
	if !ValidProject(cfg.Repo) {
		return nil, fmt.Errorf("%w: %q", ErrBadRepo, cfg.Repo)
	}
	if cfg.Token == "" && os.Getenv(WorkerEnv) == "" && !cfg.Options.ReadOnly {
		return nil, ErrNoToken
	}
	c := newGitLabClient(cfg)
	return openForge(ctx, cfg, c, &gitlabAPI{c: c})
}
