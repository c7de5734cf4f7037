package controller

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// glPRToken is the GitLab token of the merge-request tests: it must
// reach GitLab's stand-in and nothing else.
const glPRToken = "glpat-prdeliverSECRETtoken0123"

// glProject is the GitLab project of the merge-request tests (a
// subgroup, as GitLab allows).
const glProject = "acme/platform/app"

// newGitLabRig is newPRRig with GitLab's stand-in in place of GitHub's:
// it knows the branches the bare repository holds, and the controller's
// environment holds both forges' tokens (only GitLab's may reach it).
func newGitLabRig(t *testing.T) (prRig, *fakegitlab.Server) {
	t.Helper()
	rig := newPRRig(t)
	gl := fakegitlab.New(fakegitlab.Options{Branch: func(_, branch string) (string, bool) {
		return gittest.BranchAt(rig.bare, branch)
	}}, map[string]fakegitlab.Token{glPRToken: {Username: "ann", Level: 30}}, nil, glProject)
	t.Cleanup(gl.Close)
	t.Setenv("GITLAB_TOKEN", glPRToken)
	return rig, gl
}

// gitlabConfig is rig's loop, delivering to GitLab.
func gitlabConfig(rig prRig, gl *fakegitlab.Server) config.Config {
	cfg := rig.loopConfig()
	cfg.Worktrees.PRForge, cfg.Worktrees.PRRepo, cfg.Worktrees.PRAPIURL = config.ForgeGitLab, glProject, gl.URL
	return cfg
}

// TestAcceptOpensOneMergeRequestOnGitLab: the same reviewed loop as
// TestAcceptOpensOnePullRequest, on GitLab. /accept pushes the step's
// branch and opens exactly one merge request of it, whose description
// holds the task, both verdicts with the finding and the judge's
// decision; PULL_REQUEST names its web URL and the forge, the pipeline
// keeps what status and a later reject read back; GitLab got the
// GitLab token in PRIVATE-TOKEN and never GitHub's; neither token is in
// the log, the ledger root or an agent's environment.
func TestAcceptOpensOneMergeRequestOnGitLab(t *testing.T) {
	rig, gl := newGitLabRig(t)
	root := t.TempDir()
	var logs lockedBuffer
	h := startHarnessWith(t, Options{Root: root, Config: gitlabConfig(rig, gl),
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ack := h.forward("handle the empty body")
	pending := h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	passed := h.delivered(ack.TaskID)
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	mrs := gl.MergeRequests(glProject)
	if len(mrs) != 1 || len(rig.gh.Pulls("octo/hello")) != 0 {
		t.Fatalf("%d merge requests (want 1), %d pull requests (want 0)", len(mrs), len(rig.gh.Pulls("octo/hello")))
	}
	mr := mrs[0]
	branch := pending.Payload.String("branch")
	if mr.Source != branch || mr.Target != "main" || mr.Author != "ann" || mr.State != "opened" {
		t.Errorf("merge request %+v; want source %s, target main", mr, branch)
	}
	if pushed := gittest.Git(t, rig.bare, "rev-parse", "refs/heads/"+branch); pushed != mr.SHA || pushed != passed.Payload.String("tip") {
		t.Errorf("origin holds %s at %s; MR sha %s, ACCEPTANCE_PASSED tip %s", branch, pushed, mr.SHA, passed.Payload.String("tip"))
	}
	for _, want := range []string{"handle the empty body", "request_changes", "handler.go:42: empty body not handled",
		"approve", workflow.JudgeReviewerApproved, ack.TaskID} {
		if !strings.Contains(mr.Body, want) {
			t.Errorf("the merge request's description lacks %q:\n%s", want, mr.Body)
		}
	}
	opened := h.opFor(ack.TaskID, OpPullRequest)
	if opened.Payload.String("url") != mr.WebURL || opened.Payload.String("forge") != "gitlab" || !payloadTrue(opened.Payload, "created") ||
		passed.Payload.String("pull_request") != mr.WebURL {
		t.Errorf("PULL_REQUEST %v, ACCEPTANCE_PASSED %v; want %s", opened.Payload, passed.Payload, mr.WebURL)
	}
	posts := 0
	for _, r := range gl.Requests() {
		if r.Header.Get("PRIVATE-TOKEN") != glPRToken || r.Header.Get("Authorization") != "" {
			t.Errorf("%s %s: not (only) GitLab's token in PRIVATE-TOKEN", r.Method, r.Path)
		}
		if r.Method == "POST" {
			posts++
		}
	}
	if posts != 1 || len(rig.gh.Requests()) != 0 {
		t.Errorf("%d POSTs to GitLab (want 1), %d requests to GitHub (want 0)", posts, len(rig.gh.Requests()))
	}
	h.stop()
	data, err := ledger.Layout{Root: root}.ReadFile(ledger.PipelineFile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ledger.ParsePipelineState(data)
	if err != nil {
		t.Fatal(err)
	}
	if lc := p.RoleLifecycle; lc.Get(KeyPullRequest) != mr.WebURL || lc.Get(KeyPullRequestHead) != mr.SHA ||
		lc.Get(KeyPullRequestRepo) != glProject || lc.Get(KeyPullRequestForge) != "gitlab" || lc.Get(KeyPullRequestNumber) != "1" {
		t.Errorf("the pipeline does not name the merge request for status: %v", lc)
	}
	assertNoToken(t, "the controller's log", logs.String())
	for _, dir := range []string{root, rig.envDir} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if data, err := os.ReadFile(path); err == nil {
				assertNoToken(t, path, string(data))
			}
			return nil
		})
	}
}

// TestGitLabRemote: with no pr_forge, a remote on a host that names
// GitLab opens a merge request on that host's API, its project read
// from the URL, subgroups and all; GitHub hosts stay GitHub's.
func TestGitLabRemote(t *testing.T) {
	repo := gittest.NewRepo(t, map[string]string{"a": "a\n"})
	gittest.Git(t, repo, "remote", "add", "origin", "/nowhere")
	r, err := gitwork.Open(t.Context(), repo)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITLAB_TOKEN", "gl")
	t.Setenv("GITHUB_TOKEN", "gh")
	for raw, want := range map[string]string{
		"git@gitlab.com:acme/platform/app.git":          "gitlab acme/platform/app  gl",
		"https://gitlab.example.com/acme/platform/app":  "gitlab acme/platform/app https://gitlab.example.com/api/v4 gl",
		"https://github.com/octo/hello.git":             "github octo/hello  gh",
		"ssh://git@ghe.example.com/octo/hello.git":      "github octo/hello https://ghe.example.com/api/v3 gh",
		"https://git.example.com/acme/platform/app.git": "",
	} {
		gittest.Git(t, repo, "remote", "set-url", "origin", raw)
		c := &Controller{cfg: config.Config{Worktrees: config.DefaultWorktrees()}}
		target, err := c.prTarget(t.Context(), r, "origin")
		got := ""
		if err == nil {
			got = strings.Join([]string{target.Service, target.Repo, target.APIURL, target.Token}, " ")
		}
		if got != want {
			t.Errorf("remote %s: %q (%v), want %q", raw, got, err, want)
		}
	}
}
