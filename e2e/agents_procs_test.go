package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
)

// bashLane is a Claude Code lane that may run its Bash tool (acceptEdits
// alone denies it).
func bashLane(name string) string {
	return `
[[lanes]]
name = "` + name + `"
kind = "claude"
dir = "{project}"
command = ["claude", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", "{instruction}"]
resume_command = ["claude", "-p", "--resume", "{session}", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", "{instruction}"]
stop_grace = "2s"
timeout = "2m"
`
}

// toolServer is a Claude turn whose Bash tool starts a server in a
// session of its own (setsid, as a tool's own child may) that writes its
// pid into pidFile, then a turn the model holds: the step stays busy.
func toolServer(mark, pidFile string) fakemodel.Rule {
	return fakemodel.Rule{Name: "worker", Match: mark, Turns: []fakemodel.Turn{
		fakemodel.Call("Starting a server.", fakemodel.Bash(
			"setsid sh -c 'echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 600' </dev/null >/dev/null 2>&1 &")),
		{Text: "Server started.", Hold: true},
	}}
}

// TestRealClaudesToolTreeDiesOnCancel: Claude Code's Bash tool starts a
// server in a session of its own; /cancel of the step leaves no process
// of the tree alive: not Claude, not the server.
func TestRealClaudesToolTreeDiesOnCancel(t *testing.T) {
	t.Parallel()
	const mark = "MARK-tool-tree-cancel"
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	b := newAgentBench(t, toolServer(mark, pidFile))
	b.configure(bashLane("worker"))
	ctl := b.startController()
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": start a server"))
	select {
	case <-b.model.Holding():
	case <-time.After(90 * time.Second):
		t.Fatalf("Claude never asked for its second answer\n%s", b.describe())
	}
	server := pidIn(t, pidFile)
	started := b.waitOp(taskID, "STEP_STARTED", 10*time.Second)
	claude := payloadInt(started, "pid")
	if r := run(t, "send", "--root", b.root, "--cancel", "--task-id", taskID); r.code != 0 {
		t.Fatalf("send --cancel: %+v", r)
	}
	if claude > 0 {
		waitPidsGone(t, "Claude after /cancel", claude)
	}
	waitPidsGone(t, "Claude's tool server after /cancel", server)
}

// TestRealClaudesToolTreeDiesAtTheSuccessorsTakeover: the controller is
// SIGKILLed while Claude Code's tool server runs; the successor's
// takeover leaves no process of the old tree alive (the server had left
// Claude's group and session).
func TestRealClaudesToolTreeDiesAtTheSuccessorsTakeover(t *testing.T) {
	t.Parallel()
	const mark = "MARK-tool-tree-takeover"
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	b := newAgentBench(t, toolServer(mark, pidFile))
	b.configure(bashLane("worker"))
	ctl := b.startController()
	taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": start a server"))
	select {
	case <-b.model.Holding():
	case <-time.After(90 * time.Second):
		t.Fatalf("Claude never asked for its second answer\n%s", b.describe())
	}
	server := pidIn(t, pidFile)
	ctl.kill()
	if !pidAlive(server) {
		t.Fatal("the server died with the controller: nothing left to test")
	}
	successor := b.startController()
	defer successor.stop()
	waitPidsGone(t, "Claude's tool server after the successor's takeover", server)
	_ = taskID
}
