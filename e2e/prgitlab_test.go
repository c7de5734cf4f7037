package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegitlab"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// TestAcceptDeliversOneMergeRequestOnGitLab is `make review` with
// deliver = "pr" and pr_forge = "gitlab", on the real binary: `daokit
// send --accept` pushes the step's branch to origin and opens one merge
// request on GitLab's stand-in (a project in a subgroup); the run ends
// DONE with main untouched; `daokit status` shows the merge request and
// its newest pipeline; GitLab got its token in PRIVATE-TOKEN, and
// neither GitLab's nor GitHub's token is anywhere under the ledger root.
func TestAcceptDeliversOneMergeRequestOnGitLab(t *testing.T) {
	const token, ghToken = "glpat-e2eSECRETmrdeliver0123", "ghp_e2eNOTforGITLAB0123456789"
	const project = "acme/platform/app"
	t.Setenv("GITLAB_TOKEN", token)
	t.Setenv("GITHUB_TOKEN", ghToken)
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	bare := gittest.NewOrigin(t, repo)
	gl := fakegitlab.New(fakegitlab.Options{Branch: func(_, branch string) (string, bool) {
		return gittest.BranchAt(bare, branch)
	}}, map[string]fakegitlab.Token{token: {Username: "ann", Level: 30}}, nil, project)
	defer gl.Close()
	root := newRoot(t, worktreeConfig(repo, "0s")+`deliver = "pr"

[worktrees]
pr_forge = "gitlab"
pr_repo = "`+project+`"
pr_api_url = "`+gl.URL+`"
`)
	startController(t, root)
	r := run(t, "send", "--root", root, "add a cache")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	pending := waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
	})
	main := gittest.Git(t, repo, "rev-parse", "main")
	if acc := run(t, "send", "--root", root, "--accept"); acc.code != 0 {
		t.Fatalf("send --accept: %+v", acc)
	}
	opened := waitEvent(t, root, "PULL_REQUEST", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "PULL_REQUEST"
	})
	end := waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	if end.Payload.String("status") != ledger.StatusDone {
		t.Errorf("run ended %v", end.Payload)
	}
	mrs := gl.MergeRequests(project)
	if len(mrs) != 1 || mrs[0].Source != pending.Payload.String("branch") || mrs[0].Target != "main" {
		t.Fatalf("merge requests %+v", mrs)
	}
	if opened.Payload.String("url") != mrs[0].WebURL || opened.Payload.String("forge") != "gitlab" {
		t.Errorf("PULL_REQUEST %v; merge request %+v", opened.Payload, mrs[0])
	}
	if gittest.Git(t, repo, "rev-parse", "main") != main {
		t.Error("main moved: a merge request delivery merges nothing")
	}
	for _, req := range gl.Requests() {
		if req.Header.Get("PRIVATE-TOKEN") != token || strings.Contains(req.Body+req.Query, token) {
			t.Errorf("%s %s: the token not (only) in PRIVATE-TOKEN", req.Method, req.Path)
		}
	}
	gl.SetPipeline(project, mrs[0].SHA, "running")
	if st := run(t, "status", "--root", root); !strings.Contains(st.stdout, "Merge request: "+mrs[0].WebURL+" · CI: running") {
		t.Errorf("status does not show the merge request and its pipeline:\n%s", st.stdout)
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, err := os.ReadFile(path); err == nil && (strings.Contains(string(data), token) || strings.Contains(string(data), ghToken)) {
			t.Errorf("%s holds a token", path)
		}
		return nil
	})
}
