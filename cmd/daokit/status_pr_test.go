package main

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/ledger"
)

// status shows the pull request a run's change became, with its CI
// status read back from GitHub (its stand-in) when a token is set, and
// says it did not read it when none is.
func TestStatusShowsThePullRequestAndItsCI(t *testing.T) {
	t.Parallel()
	gh := fakegithub.New(fakegithub.Options{}, map[string]fakegithub.Token{"tok": {Login: "octo"}}, "octo/hello")
	defer gh.Close()
	const head = "5da78991d099d324b840fee5ef32186c6245809a"
	gh.SetStatus("octo/hello", head, "failure")
	root := initRoot(t)
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := ledger.NewPipelineState(time.Now())
	p.TaskID, p.RunID, p.Goal, p.Status = "DKT-1", "RUN-1", "deliver", ledger.StatusDone
	p.RoleLifecycle = p.RoleLifecycle.With(controller.KeyPullRequest, "https://github.com/octo/hello/pull/7").
		With(controller.KeyPullRequestRepo, "octo/hello").With(controller.KeyPullRequestAPI, gh.URL).
		With(controller.KeyPullRequestHead, head)
	if _, err := store.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, c := range []struct {
		env  map[string]string
		lang string
		want string
	}{
		{map[string]string{"GITHUB_TOKEN": "tok"}, "en", "Pull request: https://github.com/octo/hello/pull/7 · CI: failing"},
		{map[string]string{"GH_TOKEN": "tok"}, "zh-CN", "拉取请求：https://github.com/octo/hello/pull/7 · CI：失败"},
		{nil, "en", "CI: not read (set GITHUB_TOKEN or GH_TOKEN)"},
	} {
		if r := runCLI(t, c.env, "status", "--root", root, "--lang", c.lang); !strings.Contains(r.stdout, c.want) {
			t.Errorf("status (%s, %v) lacks %q:\n%s", c.lang, c.env, c.want, r.stdout)
		}
	}
	asked := 0
	for _, r := range gh.Requests() {
		if strings.HasSuffix(r.Path, "/commits/"+head+"/status") && r.Status == 200 {
			asked++
		}
	}
	if asked != 2 {
		t.Errorf("GitHub was asked for the CI status %d times, want once per status with a token (2)", asked)
	}
}

// status shows a GitLab merge request with the status of the newest
// pipeline of its head, read with GITLAB_TOKEN only, in GitLab's words.
func TestStatusShowsTheMergeRequestAndItsPipeline(t *testing.T) {
	t.Parallel()
	const project, head = "acme/platform/app", "5da78991d099d324b840fee5ef32186c6245809a"
	gl := fakegitlab.New(fakegitlab.Options{}, map[string]fakegitlab.Token{"gltok": {Username: "ann", Level: 30}}, nil, project)
	defer gl.Close()
	gl.SetPipeline(project, head, "failed")
	gl.SetPipeline(project, head, "success")
	root := initRoot(t)
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := ledger.NewPipelineState(time.Now())
	p.TaskID, p.RunID, p.Goal, p.Status = "DKT-1", "RUN-1", "deliver", ledger.StatusDone
	url := "https://gitlab.example.com/acme/platform/app/-/merge_requests/3"
	p.RoleLifecycle = p.RoleLifecycle.With(controller.KeyPullRequest, url).
		With(controller.KeyPullRequestRepo, project).With(controller.KeyPullRequestAPI, gl.URL).
		With(controller.KeyPullRequestHead, head).With(controller.KeyPullRequestForge, "gitlab")
	if _, err := store.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, c := range []struct {
		env  map[string]string
		lang string
		want string
	}{
		{map[string]string{"GITLAB_TOKEN": "gltok"}, "en", "Merge request: " + url + " · CI: passing"},
		{map[string]string{"GITLAB_TOKEN": "gltok"}, "zh-CN", "合并请求：" + url + " · CI：通过"},
		{map[string]string{"GITHUB_TOKEN": "gltok"}, "en", "CI: not read (set GITLAB_TOKEN)"},
		{map[string]string{"GITLAB_TOKEN": "wrong"}, "en", "CI: GitLab did not answer"},
	} {
		if r := runCLI(t, c.env, "status", "--root", root, "--lang", c.lang); !strings.Contains(r.stdout, c.want) {
			t.Errorf("status (%s, %v) lacks %q:\n%s", c.lang, c.env, c.want, r.stdout)
		}
	}
}
