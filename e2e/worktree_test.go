package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"

	"github.com/daokit/daokit/ledger"
)

// worktreeTimings are the controller, heartbeat and lease of the
// worktree and delivery tests: steps that take a while are not judged
// silent, and a dead controller's lease expires at once. Lanes follow.
const worktreeTimings = `
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "5s"
stale_after = "10s"

[lease]
ttl = "1s"
`

// worktreeConfig is a daokit.toml whose sim lane works in project; the
// lane's folder is in a repository, so its steps get worktrees.
func worktreeConfig(project, duration string) string {
	return worktreeTimings + `
[[lanes]]
name = "worker"
kind = "sim"
dir = "` + project + `"
command = ["{daokit}", "worker", "sim", "--duration", "` + duration + `", "--lines", "8", "--", "{instruction}"]
stop_grace = "200ms"
`
}

// TestSimChangeInAWorktreeSurvivesAKilledControllerAndIsAccepted runs the
// simulated agent in a step worktree, kills the controller with SIGKILL
// during the step, and checks that the successor reuses the worktree
// (not a second one); then the CLI shows the change, status and
// worktrees say why it is kept, prune keeps it, and an accept commits the
// sim's uncommitted edits and brings them into main.
func TestSimChangeInAWorktreeSurvivesAKilledControllerAndIsAccepted(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root := newRoot(t, worktreeConfig(project, "3s"))
	ctl := startController(t, root)
	r := run(t, "send", "--root", root, "add a cache")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	first := waitEvent(t, root, "WORKTREE_READY", 20*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "WORKTREE_READY"
	})
	waitEvent(t, root, "STEP_STARTED", 20*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventStepStarted
	})
	ctl.kill()
	startController(t, root)
	again := waitEvent(t, root, "second WORKTREE_READY", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "WORKTREE_READY" && e.EventID != first.EventID
	})
	if again.Payload.String("path") != first.Payload.String("path") || !strings.Contains(string(mustGet(again, "reused")), "true") {
		t.Fatalf("the successor did not reuse the worktree: %v then %v", first.Payload, again.Payload)
	}
	if n := strings.Count(gittest.Git(t, project, "worktree", "list", "--porcelain"), "worktree "); n != 2 {
		t.Errorf("%d worktrees, want the project and one step", n)
	}
	waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
	})
	if st := gittest.Git(t, first.Payload.String("path"), "status", "--porcelain"); st == "" {
		t.Error("the sim's edits are not in its worktree, uncommitted as a real agent leaves them")
	}

	stat := run(t, "diff", "--root", root, "--stat")
	if stat.code != 0 || !strings.Contains(stat.stdout, "files changed") || !strings.Contains(stat.stdout, ".go") {
		t.Fatalf("diff --stat: %+v", stat)
	}
	full := run(t, "diff", "--root", root, "--task-id", taskID, "--step-id", "S1")
	if full.code != 0 || !strings.Contains(full.stdout, "+// add a cache (simulated edit, round 1)") {
		t.Fatalf("diff: %+v", full)
	}
	st := run(t, "status", "--root", root)
	if st.code != 0 || !strings.Contains(st.stdout, "Kept worktrees:") || !strings.Contains(st.stdout, "uncommitted changes") {
		t.Errorf("status does not list the kept worktree:\n%s", st.stdout)
	}
	pr := run(t, "worktrees", "--root", root, "--prune")
	if pr.code != 0 || !strings.Contains(pr.stdout, "kept: uncommitted changes") {
		t.Errorf("worktrees --prune: %+v", pr)
	}
	if _, err := os.Stat(first.Payload.String("path")); err != nil {
		t.Fatalf("prune removed a worktree with uncommitted work: %v", err)
	}

	if acc := run(t, "send", "--root", root, "--accept"); acc.code != 0 {
		t.Fatalf("send --accept: %+v", acc)
	}
	passed := waitEvent(t, root, "ACCEPTANCE_PASSED", 20*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed
	})
	if main := gittest.Git(t, project, "rev-parse", "main"); passed.Payload.String("commit") != main {
		t.Errorf("main is %s, accepted %v", main, passed.Payload)
	}
	if gittest.Git(t, project, "log", "-1", "--format=%s", "main") != "daokit: add a cache" {
		t.Error("main does not have the accept's commit of the sim's edits")
	}
	waitEvent(t, root, "WORKTREE_REMOVED", 20*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "WORKTREE_REMOVED"
	})
	if ls := run(t, "worktrees", "--root", root); !strings.Contains(ls.stdout, "no step worktrees") {
		t.Errorf("worktrees after accept: %+v", ls)
	}
	if r := run(t, "worktrees", "--root", root, "--force"); r.code != 2 {
		t.Errorf("--force without --prune: %+v", r)
	}
	if r := run(t, "worktrees", "--root", root, "--allow-setup"); r.code != 0 || !strings.Contains(r.stdout, "set-up scripts allowed in "+project) {
		t.Errorf("worktrees --allow-setup: %+v", r)
	}
	if v := gittest.Git(t, project, "config", "--local", "daokit.allowSetup"); v != "true" {
		t.Errorf("daokit.allowSetup = %q", v)
	}
}

func mustGet(e ledger.Event, key string) []byte {
	raw, _ := e.Payload.Get(key)
	return raw
}
