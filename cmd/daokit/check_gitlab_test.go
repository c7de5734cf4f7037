package main

import (
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegitlab"
)

const cliGitLabToken = "glpat-cliTOKEN0123456789abcdef"

// gitlabRoot makes a ledger root whose team keeps its outbox in the
// GitLab project at path on the stand-in at api.
func gitlabRoot(t *testing.T, path, api string) string {
	t.Helper()
	return forgeRoot(t, "gitlab", path, api)
}

// daokit check asks GitLab once (GET the project, the token in
// PRIVATE-TOKEN) and names each bad set-up in both languages; --offline
// checks the settings alone.
func TestCheckGitLabOutbox(t *testing.T) {
	f := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{
		cliGitLabToken: {Username: "bot", Level: 30}, "guest": {Username: "guest", Level: 10}}, nil, "acme/platform/app")
	defer f.Close()
	good := gitlabRoot(t, "acme/platform/app", f.URL)
	cases := []checkCase{
		{"good", good, map[string]string{"GITLAB_TOKEN": cliGitLabToken}, nil, "", ""},
		{"github's token is not GitLab's", good, map[string]string{"GITHUB_TOKEN": cliGitLabToken}, nil, "no GitLab token: set GITLAB_TOKEN", "没有 GitLab 令牌"},
		{"no token offline", good, nil, []string{"--offline"}, "no GitLab token", "没有 GitLab 令牌"},
		{"refused token", good, map[string]string{"GITLAB_TOKEN": "wrong"}, nil, "refused the token", "拒绝了该令牌"},
		{"missing project", gitlabRoot(t, "acme/none", f.URL), map[string]string{"GITLAB_TOKEN": cliGitLabToken}, nil, "the project acme/none is not at " + f.URL, "上没有项目 acme/none"},
		{"guest", good, map[string]string{"GITLAB_TOKEN": "guest"}, nil, "may not manage the issues of acme/platform/app", "无权管理 acme/platform/app 的议题"},
		{"offline", gitlabRoot(t, "acme/platform/app", "http://127.0.0.1:1/api/v4"), map[string]string{"GITLAB_TOKEN": cliGitLabToken}, []string{"--offline"}, "", ""},
		{"unreachable", gitlabRoot(t, "acme/platform/app", "http://127.0.0.1:1/api/v4"), map[string]string{"GITLAB_TOKEN": cliGitLabToken}, nil, "cannot reach http://127.0.0.1:1/api/v4", "无法连接"},
	}
	runCheckCases(t, cases, cliGitLabToken, func() int { return len(f.Requests()) })
	for _, r := range f.Requests() {
		if r.Path != "/projects/acme%2Fplatform%2Fapp" && r.Path != "/projects/acme%2Fnone" {
			t.Fatalf("check asked %s", r.Path)
		}
	}
}

// daokit outbox writes through to GitLab with GITLAB_TOKEN and reads
// the mirror back; without the token it is refused with E_GITLAB_NO_TOKEN.
func TestOutboxCommandsOnGitLab(t *testing.T) {
	f := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{cliGitLabToken: {Username: "bot", Level: 30}}, nil, "acme/platform/app")
	defer f.Close()
	root := gitlabRoot(t, "acme/platform/app", f.URL)
	env := map[string]string{"DAOKIT_ACTOR": "ann", "GITLAB_TOKEN": cliGitLabToken}
	if r := runCLI(t, env, "outbox", "new", "--root", root, "--to", "backend", "--body", "the API", "Login", "API"); r.code != 0 {
		t.Fatalf("new: %d %s", r.code, r.stderr)
	}
	if r := runCLI(t, env, "outbox", "comment", "--root", root, "1", "please", "start"); r.code != 0 {
		t.Fatalf("comment: %d %s", r.code, r.stderr)
	}
	labels, _, _, body := f.Issue("acme/platform/app", 1)
	if strings.Join(labels, ",") != "to:backend" || !strings.HasPrefix(body, "the API") || len(f.Notes("acme/platform/app", 1)) != 1 {
		t.Fatalf("on GitLab: %v %q %q", labels, body, f.Notes("acme/platform/app", 1))
	}
	if r := runCLI(t, map[string]string{"DAOKIT_ACTOR": "ann"}, "outbox", "list", "--root", root, "--lang", "zh-CN"); r.code == 0 || !strings.Contains(r.stderr, "E_GITLAB_NO_TOKEN") || !strings.Contains(r.stderr, "没有 GitLab 令牌") {
		t.Fatalf("without a token: %d %q", r.code, r.stderr)
	}
}
