package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// noChangeConfig is worktreeConfig with the simulated agent as a
// reviewer: it reads the files and changes none.
func noChangeConfig(project string) string {
	return strings.Replace(worktreeConfig(project, "300ms"), `"worker", "sim",`, `"worker", "sim", "--role", "reviewer",`, 1)
}

// TestSimThatChangedNothingEndsDone: the simulated agent, working in a
// step worktree, changes nothing; the run ends DONE without a review,
// the ledger says no_change, status says "no change to review" in both
// languages, /accept finds nothing waiting, and no worktree is kept.
func TestSimThatChangedNothingEndsDone(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root := newRoot(t, noChangeConfig(project))
	ctl := startController(t, root)
	defer ctl.stop()
	main := gittest.Git(t, project, "rev-parse", "main")
	taskID := ackTask(t, run(t, "send", "--root", root, "is the readme fine?"))
	end := waitEvent(t, root, "RUN_FINISHED", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	if end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if _, ok := findEvent(t, root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "REVIEW_PENDING" }); ok {
		t.Error("a step that changed nothing waited for review")
	}
	if _, ok := findEvent(t, root, func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("criterion") == "no_change"
	}); !ok {
		t.Error("no ACCEPTANCE_PASSED says the step changed nothing")
	}
	for lang, want := range map[string]string{"en": "No change to review: S1", "zh-CN": "没有需要审阅的改动：S1"} {
		if st := run(t, "status", "--root", root, "--lang", lang); st.code != 0 || !strings.Contains(st.stdout, want) {
			t.Errorf("status --lang %s does not say %q: %+v", lang, want, st)
		}
	}
	if acc := run(t, "send", "--root", root, "--accept"); acc.code == 0 {
		t.Errorf("send --accept found a change waiting: %+v", acc)
	}
	if wt := run(t, "worktrees", "--root", root); !strings.Contains(wt.stdout, "no step worktrees") {
		t.Errorf("worktrees: %+v", wt)
	}
	if gittest.Git(t, project, "rev-parse", "main") != main {
		t.Error("main moved")
	}
}

// TestRealClaudeAnswerWithoutEditEndsDone: the real Claude Code,
// asked a question, answers it without touching a file; its run ends
// DONE with no review pending.
func TestRealClaudeAnswerWithoutEditEndsDone(t *testing.T) {
	t.Parallel()
	mark := "MARK-nochange"
	b := newAgentBench(t, fakemodel.Rule{Name: "answer", Match: mark, Turns: []fakemodel.Turn{
		fakemodel.Say("hello.txt holds one line: line one. Nothing needs changing."),
	}})
	b.configure(claudeLane("coder"))
	ctl := b.startController()
	defer ctl.stop()
	main := gittest.Git(t, b.project, "rev-parse", "main")
	taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": what does hello.txt say?"))
	end := b.waitOp(taskID, "RUN_FINISHED", 90*time.Second)
	if end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v\n%s", end.Payload, b.describe())
	}
	if _, ok := findEvent(t, b.root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "REVIEW_PENDING" }); ok {
		t.Error("an answer without an edit waited for review")
	}
	passed := b.waitOp(taskID, ledger.EventAcceptancePassed, 10*time.Second)
	if passed.Payload.String("criterion") != "no_change" {
		t.Errorf("ACCEPTANCE_PASSED %v", passed.Payload)
	}
	if gittest.Git(t, b.project, "rev-parse", "main") != main {
		t.Error("main moved")
	}
}
