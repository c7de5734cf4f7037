package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakegithub"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// prRoundConfig is a coder/reviewer loop in worktrees of project whose
// accepted change becomes a pull request on GitHub's stand-in at api;
// the coder keeps each iteration's brief in briefs and adds a line to
// notes.txt, the reviewer approves.
func prRoundConfig(project, briefs, api string) string {
	lane := func(name, script string) string {
		return `
[[lanes]]
name = "` + name + `"
kind = "command"
dir = "` + project + `"
isolation = "worktree"
env = ["BRIEFS=` + briefs + `"]
stdin = true
command = ` + tomlArray([]string{"sh", "-c", script}) + `
stop_grace = "200ms"
`
	}
	return worktreeTimings +
		lane("coder", `cat > "$BRIEFS/brief-$DAOKIT_ITERATION.txt"; echo "iteration $DAOKIT_ITERATION" >> notes.txt`) +
		`deliver = "pr"
` + lane("reviewer", `cat >/dev/null; echo 'VERDICT: approve — fine'`) + `
[workflow]
kind = "loop"
max_iterations = 3
coder = "coder"
reviewer = "reviewer"

[worktrees]
pr_repo = "octo/project"
pr_api_url = "` + api + `"
`
}

// TestRejectOfAnOpenPullRequestGoesRoundAgainAfterAKill is the person's
// next round on the real binary: the loop's accepted change became a
// pull request and the run ended DONE; a reviewer commented on it; the
// controller is SIGKILLed. `daokit send --reject --task-id … --run-id …
// REASON` starts a successor, which knows the DONE run from the ledger
// and runs a second iteration told the reason and the comment; the next
// accept pushes a commit that builds on the first to the same branch,
// and there is still one pull request.
func TestRejectOfAnOpenPullRequestGoesRoundAgainAfterAKill(t *testing.T) {
	const token = "ghp_e2eSECRETprround0123456789"
	t.Setenv("GITHUB_TOKEN", token)
	project := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	bare := gittest.NewOrigin(t, project)
	gh := fakegithub.New(fakegithub.Options{Branch: func(_, branch string) (string, bool) {
		return gittest.BranchAt(bare, branch)
	}}, map[string]fakegithub.Token{token: {Login: "octo", Push: true}}, "octo/project")
	defer gh.Close()
	briefs := t.TempDir()
	root := newRoot(t, prRoundConfig(project, briefs, gh.URL))
	ctl := startController(t, root)
	r := run(t, "send", "--root", root, "handle the empty body")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	pending := waitEvent(t, root, "REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "REVIEW_PENDING"
	})
	runID, branch := pending.RunID, pending.Payload.String("branch")
	if acc := run(t, "send", "--root", root, "--accept"); acc.code != 0 {
		t.Fatalf("send --accept: %+v", acc)
	}
	end := waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	if end.Payload.String("status") != ledger.StatusDone || len(gh.Pulls("octo/project")) != 1 {
		t.Fatalf("run ended %v with %d pull requests", end.Payload, len(gh.Pulls("octo/project")))
	}
	first := gittest.Git(t, bare, "rev-parse", "refs/heads/"+branch)
	gh.LineComment("octo/project", gh.Pulls("octo/project")[0].Number, "bob", "notes.txt", 2, "say why it changed")
	ctl.kill()
	waitUnlocked(t, root)
	t.Cleanup(func() { stopLockHolder(t, root) })

	if rej := run(t, "send", "--root", root, "--reject", "--task-id", taskID, "--run-id", runID, "also", "log", "it"); rej.code != 0 {
		t.Fatalf("send --reject after the kill: %+v", rej)
	}
	waitEvent(t, root, "PULL_REQUEST_REVIEW", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "PULL_REQUEST_REVIEW"
	})
	waitEvent(t, root, "the second REVIEW_PENDING", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "REVIEW_PENDING" && strings.HasPrefix(e.StepID, "I2-")
	})
	brief, err := os.ReadFile(filepath.Join(briefs, "brief-2.txt"))
	if err != nil {
		t.Fatalf("no second iteration: %v", err)
	}
	for _, want := range []string{"also log it", "notes.txt:2: say why it changed (@bob)"} {
		if !strings.Contains(string(brief), want) {
			t.Errorf("the second iteration's brief lacks %q:\n%s", want, brief)
		}
	}
	if acc := run(t, "send", "--root", root, "--accept", "--task-id", taskID, "--run-id", runID); acc.code != 0 {
		t.Fatalf("second send --accept: %+v", acc)
	}
	again := waitEvent(t, root, "the second PULL_REQUEST", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "PULL_REQUEST" && strings.HasPrefix(e.StepID, "I2-")
	})
	waitEvent(t, root, "the second RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED" && e.EventID != end.EventID && e.Payload.String("status") == ledger.StatusDone
	})
	posts := 0
	for _, req := range gh.Requests() {
		if req.Method == "POST" && strings.HasSuffix(req.Path, "/pulls") {
			posts++
		}
	}
	if n := len(gh.Pulls("octo/project")); n != 1 || posts != 1 {
		t.Fatalf("%d pull requests after %d POSTs, want one of each", n, posts)
	}
	pushed := gittest.Git(t, bare, "rev-parse", "refs/heads/"+branch)
	if pushed == first || again.Payload.String("tip") != pushed || isTrue(again, "created") {
		t.Errorf("origin's %s went %s → %s; the second PULL_REQUEST %v", branch, first, pushed, again.Payload)
	}
	gittest.Git(t, bare, "merge-base", "--is-ancestor", first, pushed) // never forced
	if got := gittest.Git(t, bare, "show", "refs/heads/"+branch+":notes.txt"); got != "start\niteration 1\niteration 2" {
		t.Errorf("the pushed branch holds notes.txt = %q", got)
	}
}
