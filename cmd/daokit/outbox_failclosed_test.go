package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/lead/roster"
)

// An outbox emptied to 0 bytes (the "3 issues gone") or deleted
// is refused by every command with a clear error in the reader's
// language, and never made anew: only daokit outbox init makes one, and
// --force keeps the refused file aside.
func TestOutboxRefusesALostDatabase(t *testing.T) {
	root := teamRoot(t)
	runCLI(t, nil, "init", "--root", root)
	for _, title := range []string{"one", "two", "three"} {
		if r := runCLI(t, nil, "outbox", "new", "--root", root, "--to", "backend", title); r.code != 0 {
			t.Fatal(r.stderr)
		}
	}
	db := filepath.Join(root, "team", ".daokit", "outbox.db")
	if err := os.Truncate(db, 0); err != nil {
		t.Fatal(err)
	}
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	for _, args := range [][]string{{"outbox", "list"}, {"outbox", "new", "--to", "backend", "four"}, {"outbox", "init"}} {
		r := runCLI(t, nil, append(append(args[:1:1], args[1], "--root", root), args[2:]...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "E_OUTBOX_EMPTY") || !strings.Contains(r.stderr, "is empty (0 bytes)") ||
			!strings.Contains(r.stderr, "daokit outbox init --force") {
			t.Fatalf("%v: %d %q", args, r.code, r.stderr)
		}
	}
	zh := runCLI(t, nil, "outbox", "list", "--root", root, "--lang", "zh-CN")
	if zh.code != 1 || !strings.Contains(zh.stderr, "是空的（0 字节）") {
		t.Fatalf("zh-CN: %d %q", zh.code, zh.stderr)
	}
	if st, err := os.Stat(db); err != nil || st.Size() != 0 {
		t.Fatalf("the emptied database was replaced: %v", err)
	}
	// status says why the team is blind, as text and as JSON.
	r := runCLI(t, nil, "status", "--root", root)
	if r.code != 0 || !strings.Contains(r.stdout, "problem: the outbox database is empty (0 bytes)") {
		t.Fatalf("status: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "status", "--root", root, "--json")
	var doc struct {
		Roles        []roster.RoleView `json:"roles"`
		TeamProblems []string          `json:"team_problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Roles) != 2 || len(doc.TeamProblems) != 1 {
		t.Fatalf("%v %+v", err, doc)
	}

	r = runCLI(t, nil, "outbox", "init", "--root", root, "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "moved the refused database to "+db+".broken-") || !strings.Contains(r.stdout, "created the outbox") {
		t.Fatalf("init --force: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "outbox", "init", "--root", root); r.code != 0 || !strings.Contains(r.stdout, "nothing changed") {
		t.Fatalf("second init: %d %q", r.code, r.stdout)
	}

	// A deleted database is not made again by a command that writes.
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		os.Remove(f)
	}
	r = runCLI(t, nil, "outbox", "new", "--root", root, "--to", "backend", "five")
	if r.code != 1 || !strings.Contains(r.stderr, "E_OUTBOX_MISSING") || !strings.Contains(r.stderr, "create it with daokit outbox init") {
		t.Fatalf("missing: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatal("a command made a new outbox database")
	}
}

// daokit status shows why a Lead that is down ended, from its exit
// record, in the text and in --json.
func TestStatusShowsWhyALeadIsDown(t *testing.T) {
	root := teamRoot(t)
	runCLI(t, nil, "init", "--root", root)
	dir := filepath.Join(root, "team", ".daokit", "leads")
	if err := roster.WriteExit(dir, roster.Exit{Role: "qa", PID: 1 << 30, Reason: roster.ExitSignal, Signal: "killed", ExitCode: -1,
		Restarts: 5, GaveUp: true}); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "status", "--root", root)
	if !strings.Contains(r.stdout, "qa is down: killed by signal killed (not sent by daokit) (restarted 5 times; daokit gave up)") {
		t.Fatalf("%q", r.stdout)
	}
	r = runCLI(t, nil, "status", "--root", root, "--lang", "zh-CN")
	if !strings.Contains(r.stdout, "qa 未运行：被信号 killed 终止") {
		t.Fatalf("%q", r.stdout)
	}
	r = runCLI(t, nil, "status", "--root", root, "--json")
	var doc struct {
		Roles []roster.RoleView `json:"roles"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Roles) != 2 || doc.Roles[1].LastExit == nil ||
		doc.Roles[1].LastExit.Reason != roster.ExitSignal || !doc.Roles[1].LastExit.GaveUp || doc.Roles[0].LastExit != nil {
		t.Fatalf("%v %s", err, r.stdout)
	}
}
