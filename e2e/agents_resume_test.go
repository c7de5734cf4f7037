package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/ledger"
)

// TestRealAgentResumesItsSessionAfterTheControllerIsKilled kills the
// controller with SIGKILL while the agent (Claude Code, then Codex) waits
// for the model's second answer, after its first edit: the successor
// starts the step again with the lane's resume command and the session
// the first process reported, and the model sees that session's earlier
// conversation (the first edit), not a fresh one.
func TestRealAgentResumesItsSessionAfterTheControllerIsKilled(t *testing.T) {
	for _, cli := range []string{"claude", "codex"} {
		t.Run(cli, func(t *testing.T) {
			t.Parallel()
			resumeAfterKill(t, cli)
		})
	}
}

func resumeAfterKill(t *testing.T, cli string) {
	mark := "MARK-" + cli + "-resumes-after-kill"
	edit, lane, resumeFlag := fakemodel.Write(fakemodel.Cwd+"/hello.txt", "part one\n"), claudeLane("worker"), "--resume"
	if cli == "codex" {
		edit, lane, resumeFlag = fakemodel.PatchLine("hello.txt", "line one", "part one"), codexLane("worker"), "resume"
	}
	b := newAgentBench(t, fakemodel.Rule{Name: "worker", Match: mark, Turns: []fakemodel.Turn{
		fakemodel.Call("First part.", edit),
		{Text: "Second part done.", Hold: true},
	}})
	b.configure(lane)
	ctl := b.startController()
	taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": two parts"))
	select {
	case <-b.model.Holding():
	case <-time.After(60 * time.Second):
		t.Fatalf("%s never asked for its second answer\n%s", cli, b.describe())
	}
	bound := b.waitOp(taskID, "SESSION_BOUND", 10*time.Second)
	session := bound.Payload.String("session_id")
	killedAt := len(b.model.Requests())
	ctl.kill()
	ctl = b.startController()
	defer ctl.stop()

	resume := b.waitOp(taskID, "SESSION_RESUME", 60*time.Second)
	if resume.Payload.String("decision") != "resume" || resume.Payload.String("session_id") != session {
		t.Fatalf("the successor's choice %v, want to resume %s", resume.Payload, session)
	}
	b.waitOp(taskID, "REVIEW_PENDING", 60*time.Second)
	var starts [][]string
	for _, e := range events(t, b.root) {
		if e.TaskID == taskID && e.EventType == ledger.EventStepStarted {
			var argv []string
			raw, _ := e.Payload.Get("command")
			if err := json.Unmarshal(raw, &argv); err != nil {
				t.Fatal(err)
			}
			starts = append(starts, argv)
		}
	}
	if len(starts) != 2 || slices.Contains(starts[0], resumeFlag) || !slices.Contains(starts[1], resumeFlag) || !slices.Contains(starts[1], session) {
		t.Fatalf("step starts %q, want a fresh one then %s %s", starts, resumeFlag, session)
	}
	var after []fakemodel.Request
	for _, r := range b.model.Requests()[killedAt:] {
		if r.Rule == "worker" && r.Status == 200 {
			after = append(after, r)
		}
	}
	if len(after) == 0 {
		t.Fatalf("the resumed %s sent nothing\n%s", cli, b.describe())
	}
	first := after[0]
	if first.Answers < 1 || !strings.Contains(string(first.Body), "part one") || strings.Count(first.UserText, mark) < 2 {
		t.Errorf("the resumed request does not carry the earlier conversation (answers %d):\n%s", first.Answers, first.UserText)
	}
	// The first process, stopped with its step, left its held request.
	deadline := time.Now().Add(10 * time.Second)
	for !slices.ContainsFunc(b.model.Requests(), func(r fakemodel.Request) bool { return r.Status == fakemodel.StatusClientGone }) {
		if time.Now().After(deadline) {
			t.Fatalf("the first %s still waits for its answer after the takeover\n%s", cli, b.describe())
		}
		time.Sleep(50 * time.Millisecond) // polling the server's log; the condition decides
	}
	if first.Turn != 1 {
		t.Errorf("the resumed request got turn %d, want 1:\n%s", first.Turn, first.Body)
	}
}
