package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/ledger"
)

// agentPair scripts one loop: the coder (cli "claude" or "codex")
// changes hello.txt in its worktree, the reviewer reads it and approves
// with a reason only the script knows.
func agentPair(mark, coder, reviewer string) []fakemodel.Rule {
	var edit, look fakemodel.ToolCall
	if coder == "claude" {
		edit = fakemodel.Write(fakemodel.Cwd+"/hello.txt", "hello from the coder\n")
	} else {
		edit = fakemodel.PatchLine("hello.txt", "line one", "hello from the coder")
	}
	if reviewer == "claude" {
		look = fakemodel.Read(fakemodel.Cwd + "/hello.txt")
	} else {
		look = fakemodel.Exec("cat hello.txt")
	}
	return []fakemodel.Rule{
		{Name: "reviewer", Match: mark, All: []string{"VERDICT:"}, Turns: []fakemodel.Turn{
			fakemodel.Call("Reading the change.", look),
			fakemodel.Say("- hello.txt now greets\nVERDICT: approve — " + mark + " greeting checked"),
		}},
		{Name: "coder", Match: mark, Turns: []fakemodel.Turn{
			{Text: "Changing hello.txt.", Tools: []fakemodel.ToolCall{edit}, Usage: fakemodel.Usage{Input: 1146, Output: 57, CacheRead: 4000, CacheCreation: 200}},
			fakemodel.Say("Done: hello.txt greets."),
		}},
	}
}

// TestRealAgentsLoopReachesDone runs the loop with the real CLIs, a
// Claude coder and a Codex reviewer and then the other way round: the
// coder's change is in its worktree (not in the project), the reviewer
// saw it through its own tool, and the verdict is the script's.
func TestRealAgentsLoopReachesDone(t *testing.T) {
	for _, pair := range [][2]string{{"claude", "codex"}, {"codex", "claude"}} {
		t.Run(pair[0]+"-coder", func(t *testing.T) {
			t.Parallel()
			mark := "MARK-" + pair[0] + "-codes"
			b := newAgentBench(t, agentPair(mark, pair[0], pair[1])...)
			lane := map[string]func(string) string{"claude": claudeLane, "codex": codexLane}
			b.configure(lane[pair[0]]("coder") + lane[pair[1]]("reviewer") + loopFlow("coder", "reviewer"))
			ctl := b.startController()
			defer ctl.stop()
			taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": make hello.txt greet"))
			b.waitOp(taskID, "REVIEW_PENDING", 60*time.Second)
			if d, ok := findEvent(t, b.root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "ITERATION_FINISHED" }); !ok ||
				d.Payload.String("decision") != "done" || payloadInt(d, "iteration") != 1 {
				t.Errorf("judge decision %v, want done after iteration 1", d.Payload)
			}
			verdict, ok := findEvent(t, b.root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "REVIEW_VERDICT" })
			if !ok || verdict.Payload.String("verdict") != "approve" || !strings.Contains(verdict.Payload.String("reason"), mark+" greeting checked") {
				t.Errorf("verdict %v, want the script's approval", verdict.Payload)
			}
			tree, ok := findEvent(t, b.root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "WORKTREE_READY" })
			if !ok {
				t.Fatal("no worktree")
			}
			got, err := os.ReadFile(filepath.Join(tree.Payload.String("path"), "hello.txt"))
			if err != nil || string(got) != "hello from the coder\n" {
				t.Errorf("hello.txt in the worktree: %q %v", got, err)
			}
			if orig, _ := os.ReadFile(filepath.Join(b.project, "hello.txt")); string(orig) != "line one\n" {
				t.Errorf("the project itself changed: %q", orig)
			}
			saw := false
			for _, r := range b.model.Scripted("reviewer") {
				for _, res := range r.ToolResults {
					saw = saw || strings.Contains(res, "hello from the coder")
				}
			}
			if !saw {
				t.Errorf("the reviewer's tool never saw the coder's change\n%s", b.describe())
			}
			// What /accept delivers is checked where delivery is tested;
			// here the run must end DONE once accepted.
			if acc := run(t, "send", "--root", b.root, "--accept"); acc.code != 0 {
				t.Fatalf("send --accept: %+v", acc)
			}
			if end := b.waitOp(taskID, "RUN_FINISHED", 30*time.Second); end.Payload.String("status") != ledger.StatusDone {
				t.Errorf("run ended %s (%s)", end.Payload.String("status"), end.Payload.String("reason_code"))
			}
		})
	}
}
