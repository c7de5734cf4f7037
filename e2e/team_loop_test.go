package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
)

// A role whose workflow is a loop of the simulated agents (no worker
// named: daokit worker sim as coder and reviewer) works an issue filed
// from the shell under the controller's Lead: the reviewer requests
// changes once, then approves; the issue closes with the verdict in the
// Lead's result, and each step's log is there for daokit logs.
func TestTeamLoopRole(t *testing.T) {
	root := newRoot(t, simConfig("1s")+"\n[team]\noutbox_root = \"team\"\n")
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	wf := "[roles.backend]\nworkflow = \"loop\"\ncoder = \"impl\"\nreviewer = \"review\"\n[roles.backend.lanes.impl]\n[roles.backend.lanes.review]\n"
	if err := os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatalf("outbox init: %+v", r)
	}
	if r := run(t, "check", "--root", root); r.code != 0 {
		t.Fatalf("check of a loop role: %d\n%s", r.code, r.stderr)
	}
	c := startController(t, root)
	defer c.stop()
	waitEvent(t, root, "backend Lead started", 20*time.Second, leadEvent("LEAD_STARTED", "backend"))
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "Add", "the", "handler"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	var thread string
	waitFor(t, 60*time.Second, "the issue closed", func() bool {
		r := run(t, "outbox", "show", "--root", root, "1")
		thread = r.stdout
		return r.code == 0 && strings.Contains(thread, "Done: the Worker finished #1.")
	})
	var done outbox.Mailbox
	for _, part := range strings.Split(thread, "Done: the Worker finished #1.")[1:] {
		done = outbox.ParseMailbox("Done" + part)
	}
	if ch := done.Fields[outbox.FieldChanges]; !strings.Contains(ch, "review (iteration 2/3): approve") {
		t.Fatalf("Changes %q in\n%s", ch, thread)
	}
	if ts := done.Fields[outbox.FieldTests]; !strings.Contains(ts, "judge reviewer_approved (iteration 2/3): JUDGE_REVIEWER_APPROVED") {
		t.Fatalf("Tests %q in\n%s", ts, thread)
	}
	r := run(t, "logs", "--root", root, "--role", "backend", "--issue", "1", "--step-id", "I1-reviewer")
	if r.code != 0 || !strings.Contains(r.stdout, `"verdict":"request_changes"`) {
		t.Fatalf("logs of the first review: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// daokit check fails a broken loop (exit 1), every problem on a line of
// its own, in both languages.
func TestCheckFailsABrokenLoop(t *testing.T) {
	t.Parallel()
	root := newRoot(t, "[team]\noutbox_root = \"team\"\n")
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	wf := "[roles.backend]\nworkflow = \"loops\"\n[roles.qa]\nworkflow = \"loop\"\nreviewer = \"rev\"\n[roles.qa.lanes.impl]\n"
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte(wf), 0o644)
	r := run(t, "check", "--root", root)
	if r.code != 1 || strings.Count(r.stderr, "E_CHECK_WORKFLOW_INVALID: ") != 3 ||
		!strings.Contains(r.stderr, `roles.backend.workflow = "loops": unknown workflow`) ||
		!strings.Contains(r.stderr, "roles.qa.coder = -: a loop needs a lane") || !strings.Contains(r.stderr, `roles.qa.reviewer = "rev": a loop needs a lane`) {
		t.Fatalf("check: %d\n%s", r.code, r.stderr)
	}
	zh := run(t, "check", "--root", root, "--lang", "zh-CN")
	if zh.code != 1 || !strings.Contains(zh.stderr, "未知的工作流") || strings.Count(zh.stderr, "循环在这里需要该角色的一个 lane") != 2 {
		t.Fatalf("check in Chinese: %d\n%s", zh.code, zh.stderr)
	}
}
