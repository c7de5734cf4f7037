package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/outbox"
)

// teamRoot makes a ledger root whose daokit.toml points at an outbox root
// with a workflow.toml of two roles.
func teamRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "daokit.toml"), []byte("[team]\noutbox_root = \"team\"\n[team.role_max_concurrent]\nbackend = 2\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte(
		"[roles.backend]\nrole_repo = \"repos/backend\"\n[roles.qa]\nrole_repo = \"repos/qa\"\ndepends_on = [\"backend\"]\n[groups.backend]\nmax_concurrent = 4\n"), 0o644)
	if r := runCLI(t, nil, "outbox", "init", "--root", root); r.code != 0 {
		t.Fatalf("outbox init: %d %s", r.code, r.stderr)
	}
	return root
}

func TestOutboxCommandsRoundTrip(t *testing.T) {
	root := teamRoot(t)
	env := map[string]string{"DAOKIT_ACTOR": "ann"}
	r := runCLI(t, env, "outbox", "new", "--root", root, "--to", "backend", "--body", "the API", "--json", "Login", "API")
	if r.code != 0 {
		t.Fatalf("new: %d %s", r.code, r.stderr)
	}
	var created struct{ Issue int64 }
	if err := json.Unmarshal([]byte(r.stdout), &created); err != nil || created.Issue != 1 {
		t.Fatalf("new json %q %v", r.stdout, err)
	}
	for _, args := range [][]string{
		{"comment", "--trigger", "T-1", "1", "please", "start"},
		{"label", "1", "decision:needed"},
		{"label", "--remove", "1", "decision:needed"},
		{"assign", "1", "lead:backend"},
		{"close", "#1"},
	} {
		if r := runCLI(t, env, append([]string{"outbox", args[0], "--root", root}, args[1:]...)...); r.code != 0 {
			t.Fatalf("%v: %d %s", args, r.code, r.stderr)
		}
	}
	r = runCLI(t, env, "outbox", "show", "--root", root, "--json", "1")
	var shown struct {
		Issue    outbox.Issue
		Comments []outbox.Comment
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil {
		t.Fatal(err)
	}
	if !shown.Issue.Closed || shown.Issue.Assignee != "lead:backend" || strings.Join(shown.Issue.Labels, ",") != "to:backend" ||
		shown.Issue.Author != "ann" || len(shown.Comments) != 1 || outbox.ParseMailbox(shown.Comments[0].Body).Fields["Trigger"] != "T-1" {
		t.Fatalf("%+v", shown)
	}
	r = runCLI(t, env, "outbox", "list", "--root", root, "--state", "all", "--lang", "zh-CN")
	if r.code != 0 || !strings.Contains(r.stdout, "已关闭") || !strings.Contains(r.stdout, "Login API") {
		t.Fatalf("list: %q", r.stdout)
	}
	r = runCLI(t, env, "outbox", "new", "--root", root, "--to", "nobody", "x")
	if r.code != 2 || !strings.Contains(r.stderr, "no role nobody") {
		t.Fatalf("unknown role: %d %q", r.code, r.stderr)
	}
	r = runCLI(t, env, "outbox", "show", "--root", root, "9")
	if r.code != 1 || !strings.Contains(r.stderr, "E_OUTBOX_NOT_FOUND") {
		t.Fatalf("missing: %d %q", r.code, r.stderr)
	}
}

// A process started by a Lead as a Worker cannot write the outbox, even
// through the CLI.
func TestOutboxRefusesWorkers(t *testing.T) {
	root := teamRoot(t)
	if r := runCLI(t, nil, "outbox", "new", "--root", root, "x"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	t.Setenv(outbox.WorkerEnv, "backend")
	r := runCLI(t, nil, "outbox", "comment", "--root", root, "1", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "E_OUTBOX_READ_ONLY") {
		t.Fatalf("%d %q", r.code, r.stderr)
	}
}

func TestWorkflowErrorsReachTheCLI(t *testing.T) {
	root := teamRoot(t)
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte("[roles.a]\ndepends_on=[\"a\"]\n"), 0o644)
	r := runCLI(t, nil, "outbox", "list", "--root", root, "--lang", "zh-CN")
	if r.code != 1 || !strings.Contains(r.stderr, "E_WORKFLOW") || !strings.Contains(r.stderr, "循环") {
		t.Fatalf("%d %q", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(root, "team", "workflow.toml"), []byte("[roles.a]\n"), 0o644)
	r = runCLI(t, nil, "outbox", "list", "--root", root)
	if r.code != 1 || !strings.Contains(r.stderr, "team.role_max_concurrent.backend") {
		t.Fatalf("hard cap of an unknown role: %d %q", r.code, r.stderr)
	}
}

func TestLeadCommandChecksItsRole(t *testing.T) {
	root := teamRoot(t)
	if r := runCLI(t, nil, "lead", "--root", root); r.code != 2 || !strings.Contains(r.stderr, "--role") {
		t.Fatalf("%d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "lead", "--root", root, "--role", "web"); r.code != 2 || !strings.Contains(r.stderr, "no role web") {
		t.Fatalf("%d %q", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "lead", "guard", "--", "true"); r.code != 1 || !strings.Contains(r.stderr, "E_GUARD") {
		t.Fatalf("guard outside a Lead: %d %q", r.code, r.stderr)
	}
}

// status lists the roles: a table, and "roles" in --json (only for a
// root with a team).
func TestStatusListsRoles(t *testing.T) {
	root := teamRoot(t)
	if r := runCLI(t, nil, "init", "--root", root); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := runCLI(t, nil, "outbox", "new", "--root", root, "--to", "qa", "x"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := runCLI(t, nil, "status", "--root", root)
	if r.code != 0 || !strings.Contains(r.stdout, "Roles:") || !strings.Contains(r.stdout, "backend") || !strings.Contains(r.stdout, "down") {
		t.Fatalf("%d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "status", "--root", root, "--json")
	var doc struct {
		Roles []struct {
			Role, Health string
			Lag          int64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Roles) != 2 || doc.Roles[1].Role != "qa" || doc.Roles[1].Lag != 1 {
		t.Fatalf("%v %+v\n%s", err, doc, r.stdout)
	}
	plain := t.TempDir()
	runCLI(t, nil, "init", "--root", plain)
	if r := runCLI(t, nil, "status", "--root", plain, "--json"); strings.Contains(r.stdout, "roles") {
		t.Fatal("roles in the status of a root without a team")
	}
}
