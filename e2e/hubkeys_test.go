package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
)

// issueKey runs `daokit hub creds` for root id and role into dir's
// registry and returns the seed file.
func issueKey(t *testing.T, dir, id, role string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), id+"-"+role+".nk")
	if r := run(t, "hub", "creds", "--data", dir, "--root-id", id, "--role", role, "--out", out); r.code != 0 {
		t.Fatalf("hub creds %s %s: %d %s", id, role, r.code, r.stderr)
	}
	return out
}

// hubWithRootKeys starts a real hub and issues the drills' root a
// leader key and an agent key, let in once the hub's SIGHUP took them:
// a controller and an agent host that hold only their own keys.
func hubWithRootKeys(t *testing.T) (h *hubProc, leaderKey, agentKey string) {
	t.Helper()
	dir := t.TempDir()
	h = startHubProc(t, dir, "127.0.0.1:0")
	leaderKey, agentKey = issueKey(t, dir, hubAgentRootID, "leader"), issueKey(t, dir, hubAgentRootID, "agent")
	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitAdmitted(t, h.url, agentKey)
	return h, leaderKey, agentKey
}

// waitAdmitted polls until the hub at url lets key in (after its
// SIGHUP), failing after a deadline.
func waitAdmitted(t *testing.T, url, key string) {
	t.Helper()
	root, _ := naming.ForRoot(hubAgentRootID)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := steps.DialWait(context.Background(), steps.DialOptions{URL: url, Creds: key}, root, nil)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hub still refuses %s after SIGHUP: %v", filepath.Base(key), err)
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
}

// TestStepRunsWithPerRootKeys: the keys `daokit hub creds` issues while
// a real `daokit hub` runs are let in after its SIGHUP; a controller
// holding only its root's leader key leads the root and offers a step,
// which a `daokit agent` holding only the root's agent key runs to DONE.
// An agent host holding another root's agent key gets nothing of this
// root: it fails and says so.
func TestStepRunsWithPerRootKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	leaderKey := issueKey(t, dir, hubAgentRootID, "leader")
	agentKey := issueKey(t, dir, hubAgentRootID, "agent")
	otherKey := issueKey(t, dir, "other", "agent")
	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitAdmitted(t, h.url, otherKey)

	stranger := run(t, "agent", "--hub", h.url, "--credentials", otherKey, "--root-id", hubAgentRootID, "--name", "stranger",
		"--lanes", "remote", "--ack-wait", "1s", "--work", t.TempDir())
	if stranger.code == 0 || !strings.Contains(stranger.stderr, "E_AGENT_FAILED: the hub refused this key: nats: permissions violation") ||
		!strings.Contains(stranger.stderr, "DAOKIT_e2e_STEPS") {
		t.Errorf("an agent with another root's key: code %d stderr %q; want E_AGENT_FAILED naming the refused stream", stranger.code, stranger.stderr)
	}

	root := newRoot(t, hubAgentConfig(h.url, leaderKey, "300ms"))
	startAgent(t, h.url, agentKey, "host-a")
	ctl := startController(t, root)
	defer ctl.stop()
	taskID := ackTask(t, run(t, "send", "--root", root, "run me with per-root keys"))
	end := finished(t, root, taskID)
	if s := end.Payload.String("status"); s != ledger.StatusDone {
		t.Fatalf("the run ended %s/%s, want DONE; stderr.log:\n%s", s, end.Payload.String("reason_code"), stepLog(root, taskID, "S1", "stderr.log"))
	}
	if out := stepLog(root, taskID, "S1", "stdout.log"); !strings.Contains(out, "agent=host-a\n") {
		t.Errorf("stdout.log lacks agent=host-a:\n%s", out)
	}
}
