package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// TestAcceptDeliversOnePullRequestAcrossAKilledController is `make
// review` with deliver = "pr", on the real binary: the simulated agent's
// uncommitted change waits for review; `daokit send --accept` commits
// it, pushes the step's branch to origin (a bare repository) and asks
// GitHub (its stand-in) for the pull request; the controller is
// SIGKILLed after GitHub received that request and before it answered
// (GitHub opened the pull request all the same). The accept repeated
// from a shell starts a successor, which finds the pull request by its
// branch: one pull request, one POST, the run DONE, main untouched,
// status showing the pull request, and the token nowhere under the
// ledger root.
func TestAcceptDeliversOnePullRequestAcrossAKilledController(t *testing.T) {
	const token = "ghp_e2eSECRETprdeliver0123456789"
	t.Setenv("GITHUB_TOKEN", token) // every daokit process of the test inherits it
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	bare := gittest.NewOrigin(t, project)
	gh := fakegithub.New(fakegithub.Options{Branch: func(_, branch string) (string, bool) {
		return gittest.BranchAt(bare, branch)
	}}, map[string]fakegithub.Token{token: {Login: "octo", Push: true}}, "octo/project")
	defer gh.Close()
	hold, holding := make(chan struct{}), make(chan struct{})
	gh.Inject(fakegithub.Fault{Method: "POST", PathSuffix: "/pulls", Hold: hold, Holding: holding})
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	root := newRoot(t, worktreeConfig(project, "0s")+`deliver = "pr"

[worktrees]
pr_repo = "octo/project"
pr_api_url = "`+gh.URL+`"
`)
	ctl := startController(t, root)
	r := run(t, "send", "--root", root, "add a cache")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	pending := waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
	})
	branch := pending.Payload.String("branch")
	main := gittest.Git(t, project, "rev-parse", "main")
	if acc := run(t, "send", "--root", root, "--accept"); acc.code != 0 {
		t.Fatalf("send --accept: %+v", acc)
	}
	select {
	case <-holding:
	case <-time.After(30 * time.Second):
		t.Fatal("GitHub was never asked for the pull request")
	}
	ctl.kill()
	released = true
	close(hold)
	waitUnlocked(t, root)
	t.Cleanup(func() { stopLockHolder(t, root) })
	for deadline := time.Now().Add(15 * time.Second); len(gh.Pulls("octo/project")) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("GitHub did not open the held pull request")
		}
	}

	if acc := run(t, "send", "--root", root, "--accept"); acc.code != 0 {
		t.Fatalf("send --accept after the kill: %+v", acc)
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
	pulls := gh.Pulls("octo/project")
	posts := 0
	for _, req := range gh.Requests() {
		if req.Method == "POST" && strings.HasSuffix(req.Path, "/pulls") {
			posts++
		}
	}
	if len(pulls) != 1 || posts != 1 {
		t.Fatalf("%d pull requests after %d POSTs, want one of each: %+v", len(pulls), posts, pulls)
	}
	if isTrue(opened, "created") || opened.Payload.String("url") != pulls[0].URL || pulls[0].Head != branch {
		t.Errorf("PULL_REQUEST %v; pull request %+v", opened.Payload, pulls[0])
	}
	if diff := gittest.Git(t, bare, "diff", "--stat", "main", branch); !strings.Contains(diff, "2 files changed") {
		t.Errorf("the pushed branch does not hold the sim's two edits:\n%s", diff)
	}
	if gittest.Git(t, project, "rev-parse", "main") != main {
		t.Error("main moved: a pull request delivery merges nothing")
	}
	if st := run(t, "status", "--root", root); !strings.Contains(st.stdout, "Pull request: "+pulls[0].URL) {
		t.Errorf("status does not show the pull request:\n%s", st.stdout)
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), token) {
			t.Errorf("%s holds the GitHub token", path)
		}
		return nil
	})
}
