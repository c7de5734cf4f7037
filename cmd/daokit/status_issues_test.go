package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// status --json has the window's issues view: every issue with its role
// and state, and what blocks a blocked one (from its Lead's comment
// while no Lead status names it).
func TestStatusJSONListsIssuesByRoleAndState(t *testing.T) {
	root := teamRoot(t)
	if r := runCLI(t, nil, "init", "--root", root); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, args := range [][]string{{"--to", "backend", "Login API"}, {"--to", "qa", "Test login"}} {
		if r := runCLI(t, nil, append([]string{"outbox", "new", "--root", root}, args...)...); r.code != 0 {
			t.Fatal(r.stderr)
		}
	}
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := outbox.Mailbox{Text: "Blocked.", Fields: map[string]string{outbox.FieldBlockedBy: "#1"}}
	_, err = ob.Apply(context.Background(), outbox.Change{Actor: roster.Actor("qa"), Ops: []outbox.Op{
		{Kind: outbox.OpAssign, Issue: 2, Assignee: roster.Actor("qa")},
		{Kind: outbox.OpLabel, Issue: 2, Labels: []string{roster.LabelBlocked}},
		{Kind: outbox.OpComment, Issue: 2, Body: m.Render()}}})
	ob.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "status", "--root", root, "--json")
	var doc struct {
		Issues []roster.IssueView `json:"issues"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Issues) != 2 {
		t.Fatalf("%v %+v\n%s", err, doc, r.stdout)
	}
	a, b := doc.Issues[0], doc.Issues[1]
	if a.ID != 1 || a.Role != "backend" || a.State != roster.IssueOpen || a.Title != "Login API" {
		t.Errorf("issue #1: %+v", a)
	}
	if b.ID != 2 || b.Role != "qa" || b.State != roster.IssueBlocked || !slices.Equal(b.BlockedBy, []int64{1}) || b.Assignee != "lead:qa" {
		t.Errorf("issue #2: %+v", b)
	}
}
