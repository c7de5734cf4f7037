package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/outbox"
)

const cliToken = "ghp_cliTOKEN0123456789abcdef"

// githubRoot makes a ledger root whose team keeps its outbox in repo on
// the stand-in at api.
func githubRoot(t *testing.T, repo, api string) string {
	t.Helper()
	return forgeRoot(t, "github", repo, api)
}

// daokit check asks GitHub once and names each bad set-up in both
// languages; --offline checks the settings alone.
func TestCheckGitHubOutbox(t *testing.T) {
	f := fakegithub.New(fakegithub.Options{Prefix: "/api/v3"}, map[string]fakegithub.Token{
		cliToken: {Login: "bot", Push: true}, "ro": {Login: "reader"}}, "acme/app")
	defer f.Close()
	good := githubRoot(t, "acme/app", f.URL)
	cases := []checkCase{
		{"good", good, map[string]string{"GITHUB_TOKEN": cliToken}, nil, "", ""},
		{"gh's token", good, map[string]string{"GH_TOKEN": cliToken}, nil, "", ""},
		{"no token", good, nil, nil, "no GitHub token: set GITHUB_TOKEN", "没有 GitHub 令牌"},
		{"no token offline", good, nil, []string{"--offline"}, "no GitHub token", "没有 GitHub 令牌"},
		{"refused token", good, map[string]string{"GITHUB_TOKEN": "wrong"}, nil, "refused the token", "拒绝了该令牌"},
		{"missing repository", githubRoot(t, "acme/none", f.URL), map[string]string{"GITHUB_TOKEN": cliToken}, nil, "acme/none is not at " + f.URL, "上没有 acme/none"},
		{"read-only", good, map[string]string{"GITHUB_TOKEN": "ro"}, nil, "may not write the issues of acme/app", "无权写 acme/app 的 Issues"},
		{"offline", githubRoot(t, "acme/app", "http://127.0.0.1:1/api/v3"), map[string]string{"GITHUB_TOKEN": cliToken}, []string{"--offline"}, "", ""},
		{"unreachable", githubRoot(t, "acme/app", "http://127.0.0.1:1/api/v3"), map[string]string{"GITHUB_TOKEN": cliToken}, nil, "cannot reach http://127.0.0.1:1/api/v3", "无法连接"},
	}
	runCheckCases(t, cases, cliToken, func() int { return len(f.Requests()) })
}

// daokit outbox writes through to GitHub and reads the mirror back;
// without the token it is refused with the token's problem.
func TestOutboxCommandsOnGitHub(t *testing.T) {
	f := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{cliToken: {Login: "bot", Push: true}}, "acme/app")
	defer f.Close()
	root := githubRoot(t, "acme/app", f.URL)
	env := map[string]string{"DAOKIT_ACTOR": "ann", "GITHUB_TOKEN": cliToken}
	if r := runCLI(t, env, "outbox", "new", "--root", root, "--to", "backend", "--body", "the API", "Login", "API"); r.code != 0 {
		t.Fatalf("new: %d %s", r.code, r.stderr)
	}
	if r := runCLI(t, env, "outbox", "comment", "--root", root, "--trigger", "T-1", "1", "please", "start"); r.code != 0 {
		t.Fatalf("comment: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, env, "outbox", "show", "--root", root, "--json", "1")
	var shown struct {
		Issue    outbox.Issue
		Comments []outbox.Comment
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil {
		t.Fatal(r.stdout, r.stderr, err)
	}
	if shown.Issue.Author != "ann" || shown.Issue.Title != "Login API" || len(shown.Comments) != 1 || shown.Comments[0].Author != "ann" {
		t.Fatalf("%+v", shown)
	}
	labels, _, _, body := f.Issue("acme/app", 1)
	if strings.Join(labels, ",") != "to:backend" || !strings.HasPrefix(body, "the API") {
		t.Fatalf("on GitHub: %v %q", labels, body)
	}
	if r := runCLI(t, map[string]string{"DAOKIT_ACTOR": "ann"}, "outbox", "list", "--root", root, "--lang", "zh-CN"); r.code == 0 || !strings.Contains(r.stderr, "E_GITHUB_NO_TOKEN") || !strings.Contains(r.stderr, "没有 GitHub 令牌") {
		t.Fatalf("without a token: %d %q", r.code, r.stderr)
	}
}
