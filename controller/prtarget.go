package controller

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strings"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/outbox"
)

// errPRNoRepo: neither [worktrees] pr_repo nor the remote's URL names
// the GitHub repository to open the pull request on.
var errPRNoRepo = errors.New("no GitHub repository: set [worktrees] pr_repo, or use a GitHub remote")

// prTarget is where an accepted change's pull request goes: the
// repository and REST root from [worktrees] pr_repo and pr_api_url, else
// read from the remote's URL. The token comes from the controller's
// environment (GITHUB_TOKEN, else GH_TOKEN) at each accept and is kept
// nowhere.
func (c *Controller) prTarget(ctx context.Context, repo *gitwork.Repo, remote string) (outbox.PullRequestsConfig, error) {
	t := outbox.PullRequestsConfig{Repo: c.cfg.Worktrees.PRRepo, APIURL: c.cfg.Worktrees.PRAPIURL, Token: outbox.TokenFromEnv()}
	if t.Repo == "" || t.APIURL == "" {
		raw, _ := repo.RemoteURL(ctx, remote)
		if host, name, ok := githubRemote(raw); ok {
			if t.Repo == "" {
				t.Repo = name
			}
			if t.APIURL == "" && host != "github.com" {
				t.APIURL = "https://" + host + "/api/v3"
			}
		}
	}
	if t.Repo == "" {
		return t, errPRNoRepo
	}
	if t.Token == "" {
		return t, outbox.ErrNoToken
	}
	return t, nil
}

// githubRemote reads the host and "owner/name" from a remote's URL in
// the forms git takes: https://host/owner/name(.git), ssh://git@host/…,
// git@host:owner/name(.git). A local path or any other shape is no
// GitHub remote.
func githubRemote(raw string) (host, repo string, ok bool) {
	raw = strings.TrimSpace(raw)
	var path string
	switch {
	case strings.Contains(raw, "://"):
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "file" || u.Host == "" {
			return "", "", false
		}
		host, path = u.Hostname(), u.Path
	case strings.Contains(raw, ":") && !strings.HasPrefix(raw, "/") && !isLocal(raw):
		// scp-like: [user@]host:owner/name
		h, p, _ := strings.Cut(raw, ":")
		if i := strings.LastIndexByte(h, '@'); i >= 0 {
			h = h[i+1:]
		}
		host, path = h, p
	default:
		return "", "", false
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || !outbox.ValidRepo(path) {
		return "", "", false
	}
	return host, path, true
}

// isLocal reports whether raw names a folder on this machine (git reads
// "./a:b" as a path, and so does a path that exists).
func isLocal(raw string) bool {
	if strings.HasPrefix(raw, ".") {
		return true
	}
	_, err := os.Stat(raw)
	return err == nil
}
