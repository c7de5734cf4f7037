package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// A broken workflow.toml fails daokit check (exit 1) with every problem
// on a line of its own, in both languages, where it used to PASS while
// the controller ran no Lead; a missing or emptied outbox fails it too.
func TestCheckFailsABrokenTeam(t *testing.T) {
	t.Parallel()
	root := newRoot(t, "[team]\noutbox_root = \"team\"\n")
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	wf := filepath.Join(root, "team", "workflow.toml")
	os.WriteFile(wf, []byte("[roles.backend]\nrole_rep = \"x\"\n[roles.qa]\ndepends_on = [\"bakend\"]\n[groups.web]\nmax_concurrent = 0\nroles = [\"qa\"]\n"), 0o644)
	r := run(t, "check", "--root", root)
	lines := 0
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "E_CHECK_WORKFLOW_INVALID: ") {
			lines++
		}
	}
	if r.code != 1 || lines != 3 || !strings.Contains(r.stderr, "unknown setting roles.backend.role_rep") ||
		!strings.Contains(r.stderr, `roles.qa.depends_on[0] = "bakend": no such role`) || !strings.Contains(r.stderr, "groups.web.max_concurrent = 0") {
		t.Fatalf("check: %d\n%s", r.code, r.stderr)
	}
	zh := run(t, "check", "--root", root, "--lang", "zh-CN")
	if zh.code != 1 || !strings.Contains(zh.stderr, "未知设置") || !strings.Contains(zh.stderr, "没有这个角色") {
		t.Fatalf("check in Chinese: %d\n%s", zh.code, zh.stderr)
	}
	// status says the team is off, and why.
	if st := run(t, "status", "--root", root); !strings.Contains(st.stdout, "problem: "+wf+": unknown setting roles.backend.role_rep") {
		t.Fatalf("status:\n%s", st.stdout)
	}

	os.WriteFile(wf, []byte("[roles.backend]\n"), 0o644)
	r = run(t, "check", "--root", root)
	if r.code != 1 || !strings.Contains(r.stderr, "E_CHECK_OUTBOX_INVALID: no outbox database") {
		t.Fatalf("check without an outbox: %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := run(t, "check", "--root", root); r.code != 0 || !strings.Contains(r.stdout, "Health check: PASS") {
		t.Fatalf("check of a sound team: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	db := filepath.Join(root, "team", ".daokit", "outbox.db")
	if err := os.Truncate(db, 0); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "check", "--root", root); r.code != 1 || !strings.Contains(r.stderr, "is empty (0 bytes)") {
		t.Fatalf("check of an emptied outbox: %d\n%s", r.code, r.stderr)
	}
}

// A controller whose outbox was emptied does not make a new one: each
// Lead dies saying why, the controller keeps the reason, and daokit
// status shows it (text and --json) while the file stays as it was.
func TestLeadDeathReasonIsKept(t *testing.T) {
	root := teamRoot(t)
	db := filepath.Join(root, "team", ".daokit", "outbox.db")
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "kept"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, f := range []string{db + "-wal", db + "-shm"} {
		os.Remove(f)
	}
	if err := os.Truncate(db, 0); err != nil {
		t.Fatal(err)
	}
	c := startController(t, root)
	defer c.stop()
	e := waitEvent(t, root, "the backend Lead's exit", 20*time.Second, leadEvent("LEAD_EXITED", "backend"))
	if e.Payload.String("reason_code") != "OUTBOX_EMPTY" || !strings.Contains(e.Payload.String("error"), db) {
		t.Fatalf("exit event: %v", e.Payload)
	}
	var doc struct {
		Roles []struct {
			Role, Health string
			LastExit     *struct {
				Reason, Detail string
				ExitCode       int `json:"exit_code"`
			} `json:"last_exit"`
		}
	}
	waitFor(t, 20*time.Second, "status --json with the reason", func() bool {
		r := run(t, "status", "--root", root, "--json")
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		return len(doc.Roles) == 2 && doc.Roles[0].LastExit != nil && doc.Roles[1].LastExit != nil
	})
	for _, v := range doc.Roles {
		if v.LastExit.Reason != "OUTBOX_EMPTY" || v.LastExit.Detail != db || v.LastExit.ExitCode != 1 {
			t.Fatalf("%s: %+v", v.Role, *v.LastExit)
		}
	}
	waitFor(t, 20*time.Second, "status text with the reason", func() bool {
		return strings.Contains(run(t, "status", "--root", root).stdout, "backend is down: the outbox database is empty (0 bytes)")
	})
	if st, err := os.Stat(db); err != nil || st.Size() != 0 {
		t.Fatalf("the controller or a Lead replaced the emptied outbox: %v", err)
	}
	if _, ok := findEvent(t, root, func(e ledger.Event) bool { return e.Payload.String("operation") == "OUTBOX_EVENT" }); ok {
		t.Fatal("events from an outbox that should not exist")
	}

	// Until the restart bound gives up on them, the Leads keep dying for
	// the same reason; once the person makes a new outbox, they come back
	// without a controller restart, and the team works again.
	waitEvent(t, root, "the controller gives up on the backend Lead", 30*time.Second, leadEvent("LEAD_RESTART_LIMIT", "backend"))
	if r := run(t, "outbox", "init", "--root", root, "--force"); r.code != 0 || !strings.Contains(r.stdout, ".broken-") {
		t.Fatalf("outbox init --force: %+v", r)
	}
	waitFor(t, 30*time.Second, "both Leads alive", func() bool {
		r := run(t, "status", "--root", root, "--json")
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		return len(doc.Roles) == 2 && doc.Roles[0].Health == "ALIVE" && doc.Roles[1].Health == "ALIVE"
	})
	if r := run(t, "outbox", "new", "--root", root, "--to", "backend", "after the restore"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	waitFor(t, 30*time.Second, "the new issue done", func() bool {
		return strings.Contains(run(t, "outbox", "list", "--root", root, "--state", "closed").stdout, "after the restore")
	})
}
