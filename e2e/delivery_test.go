package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"

	"github.com/daokit/daokit/ledger"
)

// TestReviewSurvivesAControllerRestartAndAcceptDelivers: while the
// simulated agent's uncommitted change waits for review, the controller
// dies (SIGKILL) or is stopped (SIGTERM); the successor restores the
// review from the ledger, `daokit send --accept` delivers the change and
// main holds it. After the SIGKILL nobody starts the successor but the
// accept itself, as when a person only has a shell.
func TestReviewSurvivesAControllerRestartAndAcceptDelivers(t *testing.T) {
	for _, how := range []string{"SIGKILL", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
			root := newRoot(t, worktreeConfig(project, "0s"))
			ctl := startController(t, root)
			r := run(t, "send", "--root", root, "add a cache")
			if r.code != 0 {
				t.Fatalf("send: %+v", r)
			}
			taskID := ackTask(t, r)
			waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
				return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
			})
			before := gittest.Git(t, project, "rev-parse", "main")
			if how == "SIGKILL" {
				ctl.kill()
			} else {
				ctl.stop()
			}
			if how == "SIGKILL" {
				waitUnlocked(t, root)
				t.Cleanup(func() { stopLockHolder(t, root) })
			} else {
				startController(t, root)
				waitStatus(t, root, "the review", func(out string) bool { return strings.Contains(out, "ACCEPT") })
			}
			acc := run(t, "send", "--root", root, "--accept")
			if acc.code != 0 {
				t.Fatalf("send --accept after %s: %+v", how, acc)
			}
			if started := strings.Contains(acc.stderr, "starting"); started != (how == "SIGKILL") {
				t.Errorf("send --accept after %s started a controller: %v\n%s", how, started, acc.stderr)
			}
			passed := waitEvent(t, root, "ACCEPTANCE_PASSED", 30*time.Second, func(e ledger.Event) bool {
				return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed
			})
			main := gittest.Git(t, project, "rev-parse", "main")
			if main == before || passed.Payload.String("commit") != main {
				t.Fatalf("main %s (was %s); ACCEPTANCE_PASSED %v", main, before, passed.Payload)
			}
			if diff := gittest.Git(t, project, "diff", "--stat", before, "main"); !strings.Contains(diff, "2 files changed") {
				t.Errorf("main does not hold the sim's two edits:\n%s", diff)
			}
			end := waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
				return e.TaskID == taskID && op(e) == "RUN_FINISHED"
			})
			if end.Payload.String("status") != ledger.StatusDone {
				t.Errorf("run ended %v", end.Payload)
			}
		})
	}
}

// waitStatus polls `daokit status` until ok accepts its output.
func waitStatus(t *testing.T, root, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last result
	for time.Now().Before(deadline) {
		last = run(t, "status", "--root", root)
		if last.code == 0 && ok(last.stdout) {
			return last.stdout
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("status never showed %s:\n%+v", what, last)
	return ""
}

// TestRetryOfABlockedRunAfterAControllerRestart: a run that crashed past
// its restart budget ends BLOCKED; the controller is killed; the
// successor still knows the run, and `daokit send --retry` runs it again
// to DONE.
func TestRetryOfABlockedRunAfterAControllerRestart(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "fixed")
	root := newRoot(t, worktreeTimings+`
[restart]
max_restarts = 1
backoff_base = "100ms"
backoff_cap = "100ms"

[[lanes]]
name = "worker"
kind = "command"
command = ["sh", "-c", "if [ -e `+marker+` ]; then echo fixed; else echo crashed; exit 70; fi"]
stdin = true
`)
	ctl := startController(t, root)
	r := run(t, "send", "--root", root, "crash until fixed")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	end := waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	if end.Payload.String("status") != ledger.StatusBlocked {
		t.Fatalf("run ended %v, want BLOCKED", end.Payload)
	}
	ctl.kill()
	waitUnlocked(t, root)
	t.Cleanup(func() { stopLockHolder(t, root) })
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// No controller runs: the retry starts the successor, which restores
	// the BLOCKED run from the ledger and retries it.
	rr := run(t, "send", "--root", root, "--retry")
	if rr.code != 0 || !strings.Contains(rr.stderr, "starting") {
		t.Fatalf("send --retry after the restart: %+v", rr)
	}
	waitEvent(t, root, "RUN_FINISHED DONE", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED" && e.Payload.String("status") == ledger.StatusDone
	})
}

// TestPruneKeepsUncommittedAndIgnoredWorkDespiteAHostileExclude: two
// steps leave new files (one git-ignored) uncommitted in their
// worktrees; the first also writes `*` into the repository's shared
// info/exclude, which hides every untracked file from `git status` in
// every worktree. `daokit worktrees --prune` keeps both worktrees and
// every file; `daokit worktrees` lists them as kept.
func TestPruneKeepsUncommittedAndIgnoredWorkDespiteAHostileExclude(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n", ".gitignore": "*.log\n"})
	root := newRoot(t, worktreeTimings+`
[[lanes]]
name = "worker"
kind = "command"
dir = "`+project+`"
isolation = "worktree"
concurrency = 2
stdin = true
command = ["sh", "-c", "read line; case \"$line\" in hostile*) echo '*' >> \"$(git rev-parse --git-common-dir)/info/exclude\";; esac; mkdir -p new; echo \"$line\" > new/work.txt; echo built > build.log"]
`)
	startController(t, root)
	var paths []string
	for _, text := range []string{"hostile step", "honest step"} {
		r := run(t, "send", "--root", root, text)
		if r.code != 0 {
			t.Fatalf("send: %+v", r)
		}
		taskID := ackTask(t, r)
		ready := waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
			return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
		})
		paths = append(paths, ready.Payload.String("path"))
	}
	for _, p := range paths {
		if st := gittest.Git(t, p, "status", "--porcelain"); st != "" {
			t.Fatalf("the exclude file does not hide the work from git status in %s (%q): the test proves nothing", p, st)
		}
	}
	pr := run(t, "worktrees", "--root", root, "--prune")
	if pr.code != 0 || strings.Count(pr.stdout, "kept: uncommitted changes") != 2 || strings.Contains(pr.stdout, "removed") {
		t.Fatalf("worktrees --prune: %+v", pr)
	}
	for _, p := range paths {
		for _, f := range []string{"new/work.txt", "build.log"} {
			if _, err := os.Stat(filepath.Join(p, f)); err != nil {
				t.Errorf("prune lost %s in %s: %v", f, p, err)
			}
		}
	}
	if ls := run(t, "worktrees", "--root", root); ls.code != 0 || strings.Count(ls.stdout, "kept: uncommitted changes") != 2 {
		t.Errorf("worktrees: %+v", ls)
	}
	// An agent that detaches HEAD or switches branches does not hide its
	// worktree from the listing.
	gittest.Git(t, paths[0], "checkout", "--quiet", "--detach")
	gittest.Git(t, paths[1], "checkout", "--quiet", "-b", "agent-branch")
	ls := run(t, "worktrees", "--root", root)
	if ls.code != 0 || !strings.Contains(ls.stdout, "(detached HEAD)") || !strings.Contains(ls.stdout, "(on branch agent-branch)") ||
		strings.Count(ls.stdout, "kept: uncommitted changes") != 2 {
		t.Errorf("worktrees after detaching and switching: %+v", ls)
	}
}

// stopLockHolder stops the controller that holds root (one a command
// started on its own) and waits until it let go.
func stopLockHolder(t *testing.T, root string) {
	t.Helper()
	if pid, _ := ledger.LockHolder(root); pid > 0 {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Error(err)
		}
	}
	waitUnlocked(t, root)
}
