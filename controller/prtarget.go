package controller

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/outbox"
)

// errPRNoRepo: neither [worktrees] pr_repo nor the remote's URL names
// the repository (GitHub) or project (GitLab) to open the change
// request on.
var errPRNoRepo = errors.New("no GitHub repository or GitLab project: set [worktrees] pr_repo, or use a GitHub or GitLab remote")

// prTarget is where an accepted change's pull request (GitHub) or merge
// request (GitLab) goes: the forge from [worktrees] pr_forge, else
// GitLab when the remote's host names it, else GitHub; the repository
// and REST root from pr_repo and pr_api_url, else read from the
// remote's URL. The token comes from the controller's environment
// (GITHUB_TOKEN, else GH_TOKEN; GITLAB_TOKEN) at each accept and is
// kept nowhere.
func (c *Controller) prTarget(ctx context.Context, repo *gitwork.Repo, remote string) (outbox.PullRequestsConfig, error) {
	w := c.cfg.Worktrees
	t := outbox.PullRequestsConfig{Service: w.PRForge, Repo: w.PRRepo, APIURL: w.PRAPIURL}
	raw, _ := repo.RemoteURL(ctx, remote)
	host, name, fromRemote := forgeRemote(raw)
	if t.Service == "" {
		t.Service = config.ForgeGitHub
		if fromRemote && strings.Contains(strings.ToLower(host), "gitlab") {
			t.Service = config.ForgeGitLab
		}
	}
	if fromRemote && t.Repo == "" {
		t.Repo = name
	}
	if fromRemote && t.APIURL == "" {
		t.APIURL = forgeAPI(t.Service, host)
	}
	t.Token = outbox.ForgeTokenFrom(t.Service, os.Getenv)
	valid := outbox.ValidRepo
	if t.Service == config.ForgeGitLab {
		valid = outbox.ValidProject
	}
	if !valid(t.Repo) {
		return t, errPRNoRepo
	}
	if t.Token == "" {
		return t, outbox.ErrNoToken
	}
	return t, nil
}

// forgeAPI is the REST root of service on host: "" (the public API) on
// github.com and gitlab.com, else GitHub Enterprise's /api/v3 or a
// self-hosted GitLab's /api/v4.
func forgeAPI(service, host string) string {
	switch {
	case service == config.ForgeGitLab && host != "gitlab.com":
		return "https://" + host + "/api/v4"
	case service == config.ForgeGitHub && host != "github.com":
		return "https://" + host + "/api/v3"
	}
	return ""
}

// forgeRemote reads the host and "owner/name" (a GitLab project's
// "group/sub/name") from a remote's URL in the forms git takes:
// https://host/owner/name(.git), ssh://git@host/…, git@host:owner/name(.git).
// A local path or any other shape is no forge's remote.
func forgeRemote(raw string) (host, repo string, ok bool) {
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
	if host == "" || !outbox.ValidRepo(path) && !outbox.ValidProject(path) {
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
