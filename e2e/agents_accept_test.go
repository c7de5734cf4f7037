package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// TestRealAgentEditIsDeliveredByAccept: the real Claude Code (then
// Codex) edits hello.txt and adds a file in its worktree and, as both
// CLIs do, commits nothing; `daokit send --accept` commits that work and
// merges it, the ledger records main's new tip, and main holds both
// files.
func TestRealAgentEditIsDeliveredByAccept(t *testing.T) {
	for _, cli := range []string{"claude", "codex"} {
		t.Run(cli, func(t *testing.T) {
			t.Parallel()
			mark := "MARK-deliver-" + cli
			var edit, add fakemodel.ToolCall
			if cli == "claude" {
				edit = fakemodel.Write(fakemodel.Cwd+"/hello.txt", "hello from "+cli+"\n")
				add = fakemodel.Write(fakemodel.Cwd+"/notes/new.txt", "a new file\n")
			} else {
				edit = fakemodel.PatchLine("hello.txt", "line one", "hello from "+cli)
				add = fakemodel.Exec("mkdir -p notes && printf 'a new file\\n' > notes/new.txt")
			}
			b := newAgentBench(t, fakemodel.Rule{Name: "coder", Match: mark, Turns: []fakemodel.Turn{
				fakemodel.Call("Changing hello.txt.", edit),
				fakemodel.Call("Adding a note.", add),
				fakemodel.Say("Done: hello.txt greets and notes/new.txt exists."),
			}})
			lane := map[string]func(string) string{"claude": claudeLane, "codex": codexLane}
			b.configure(lane[cli]("coder"))
			ctl := b.startController()
			defer ctl.stop()
			before := gittest.Git(t, b.project, "rev-parse", "main")
			taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": make hello.txt greet"))
			pending := b.waitOp(taskID, "REVIEW_PENDING", 90*time.Second)
			path := pending.Payload.String("path")
			if head := gittest.Git(t, path, "rev-parse", "HEAD"); head != before {
				t.Fatalf("the agent committed (HEAD %s): this test wants the uncommitted case", head)
			}
			if st := gittest.Git(t, path, "status", "--porcelain"); !strings.Contains(st, "hello.txt") || !strings.Contains(st, "notes/") {
				t.Fatalf("the agent's work is not in its worktree: %q\n%s", st, b.describe())
			}
			if acc := run(t, "send", "--root", b.root, "--accept"); acc.code != 0 {
				t.Fatalf("send --accept: %+v", acc)
			}
			passed := b.waitOp(taskID, ledger.EventAcceptancePassed, 30*time.Second)
			main := gittest.Git(t, b.project, "rev-parse", "main")
			if main == before || passed.Payload.String("commit") != main || passed.Payload.String("committed") == "" {
				t.Fatalf("main %s (was %s); ACCEPTANCE_PASSED %v", main, before, passed.Payload)
			}
			if got := gittest.Git(t, b.project, "show", "main:hello.txt"); got != "hello from "+cli {
				t.Errorf("main:hello.txt = %q", got)
			}
			if got := gittest.Git(t, b.project, "show", "main:notes/new.txt"); got != "a new file" {
				t.Errorf("main:notes/new.txt = %q", got)
			}
			msg := gittest.Git(t, b.project, "log", "-1", "--format=%B", passed.Payload.String("committed"))
			if !strings.Contains(msg, "Daokit-Task: "+taskID) || !strings.Contains(msg, "notes/new.txt exists") {
				t.Errorf("commit message:\n%s", msg)
			}
			if end := b.waitOp(taskID, "RUN_FINISHED", 30*time.Second); end.Payload.String("status") != ledger.StatusDone {
				t.Errorf("run ended %v", end.Payload)
			}
		})
	}
}
