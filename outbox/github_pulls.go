package outbox

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// PullRequest is a pull request as GitHub reports it (the fields daokit
// reads).
type PullRequest struct {
	Number  int64  `json:"number"`
	HTMLURL string `json:"html_url"`
	State   string `json:"state"`
	Title   string `json:"title"`
	Merged  bool   `json:"merged"`
	Head    struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

// NewPull is the pull request to open: Head is the pushed branch (of
// the repository itself), Base the branch it asks to join.
type NewPull struct {
	Title, Body, Head, Base string
}

// PullRequestsConfig configures NewPullRequests.
type PullRequestsConfig struct {
	// Service is the forge: "github" (also when empty) or "gitlab".
	Service string
	// Repo is "owner/name" (a GitLab project's path, "group/sub/name");
	// APIURL the REST root (DefaultGitHubAPI or DefaultGitLabAPI when
	// empty); Token authenticates every request and is written nowhere.
	Repo, APIURL, Token string
	// HTTP replaces the default client (tests, proxies).
	HTTP *http.Client
	// MaxBlock bounds how long a call waits out a rate limit before it
	// fails with ErrRateLimited (default one minute: the person who
	// accepted is told, and accepts again later).
	MaxBlock time.Duration
}

// PullRequests opens pull requests on one repository, through the same
// REST client as the outbox (the token on every request and nowhere
// else, rate limits waited out, 5xx retried).
type PullRequests struct {
	c     *apiClient
	owner string
}

// NewPullRequests checks cfg and returns the repository's pull requests
// (ErrBadRepo, ErrNoToken).
func NewPullRequests(cfg PullRequestsConfig) (*PullRequests, error) {
	if !ValidRepo(cfg.Repo) {
		return nil, fmt.Errorf("%w: %q", ErrBadRepo, cfg.Repo)
	}
	if cfg.Token == "" {
		return nil, ErrNoToken
	}
	c := newGitHubClient(ForgeConfig{Repo: cfg.Repo, APIURL: cfg.APIURL, Token: cfg.Token, HTTP: cfg.HTTP})
	c.maxBlock = cfg.MaxBlock
	if c.maxBlock <= 0 {
		c.maxBlock = time.Minute
	}
	owner, _, _ := strings.Cut(cfg.Repo, "/")
	return &PullRequests{c: c, owner: owner}, nil
}

// Find returns the pull request whose head is branch: an open one, else
// one already merged (the change was delivered), else nil.
func (p *PullRequests) Find(ctx context.Context, branch string) (*PullRequest, error) {
	q := url.Values{"head": {p.owner + ":" + branch}, "state": {"all"}, "per_page": {"100"}}
	var list []PullRequest
	if err := p.c.getJSON(ctx, p.c.repoPath("/pulls?"+q.Encode()), &list); err != nil {
		return nil, err
	}
	var merged *PullRequest
	for i := range list {
		pr := &list[i]
		if pr.Head.Ref != branch {
			continue
		}
		if pr.State == "open" {
			return pr, nil
		}
		if pr.Merged && merged == nil {
			merged = pr
		}
	}
	return merged, nil
}

// Ensure returns the pull request of n.Head, opening it when there is
// none: an accept retried after a crash (or after a request whose answer
// was lost) finds the one it opened instead of opening a second.
// created says whether this call opened it.
func (p *PullRequests) Ensure(ctx context.Context, n NewPull) (pr *PullRequest, created bool, err error) {
	// 422 "A pull request already exists" is GitHub's word for it.
	return ensureOnce(ctx, p, n.Head, http.StatusUnprocessableEntity, func() (*PullRequest, error) {
		var out PullRequest
		err := p.c.sendJSON(ctx, http.MethodPost, p.c.repoPath("/pulls"),
			map[string]any{"title": n.Title, "body": n.Body, "head": n.Head, "base": n.Base}, &out)
		return &out, err
	})
}

// Checks is the combined CI status of the commit ref ("success",
// "failure", "pending"; "" when nothing reported one).
func (p *PullRequests) Checks(ctx context.Context, ref string) (string, error) {
	var st struct {
		State      string `json:"state"`
		TotalCount int    `json:"total_count"`
	}
	if err := p.c.getJSON(ctx, p.c.repoPath("/commits/"+url.PathEscape(ref)+"/status"), &st); err != nil {
		return "", err
	}
	if st.TotalCount == 0 {
		return "", nil
	}
	return st.State, nil
}
