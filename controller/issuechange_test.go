package controller

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/team"
)

// A comment, a label (on and off) and a close sent over the relay, as
// the window's issues view sends them, are written into the outbox by
// the controller for the person, each recorded in the ledger; an issue
// the outbox does not have and a request without a number are refused
// with their codes, and nothing is written for them.
func TestControllerChangesAnIssueForTheWindow(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "team"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "team", team.FileName), []byte("[roles.backend]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outbox.Init(wf.DBPath(), false); err != nil {
		t.Fatal(err)
	}
	ob, err := outbox.OpenSQLite(wf.DBPath(), outbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	ctx := context.Background()
	if _, err := ob.Apply(ctx, outbox.Change{Actor: "person", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "Login API"}}}); err != nil {
		t.Fatal(err)
	}
	cfg := shellConfig("true")
	cfg.Team.OutboxRoot = "team"
	h := startHarness(t, root, cfg)

	for _, ctl := range []relay.Control{
		{Kind: relay.ControlComment, Reason: "#1 looks good"},
		{Kind: relay.ControlLabel, Reason: "#1 needs-api"},
		{Kind: relay.ControlLabel, Reason: "1 blocked-ish"},
		{Kind: relay.ControlLabel, Reason: "#1 -blocked-ish"},
		{Kind: relay.ControlClose, Reason: "#1 a duplicate of #2"},
	} {
		if _, err := h.control(ctl); err != nil {
			t.Fatalf("%s %q: %v", ctl.Kind, ctl.Reason, err)
		}
	}
	for _, bad := range []struct {
		ctl  relay.Control
		code relay.Code
	}{
		{relay.Control{Kind: relay.ControlComment, Reason: "#9 hello"}, codeNoIssue},
		{relay.Control{Kind: relay.ControlComment, Reason: "hello"}, codeBadIssueChange},
		{relay.Control{Kind: relay.ControlComment, Reason: "#1"}, codeBadIssueChange},
		{relay.Control{Kind: relay.ControlLabel, Reason: "#1 two words"}, codeBadIssueChange},
	} {
		if _, err := h.control(bad.ctl); relay.CodeOf(err) != bad.code {
			t.Errorf("%s %q: %v, want %s", bad.ctl.Kind, bad.ctl.Reason, err, bad.code)
		}
	}

	is, err := ob.Issue(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !is.Closed || !slices.Equal(is.Labels, []string{"needs-api"}) {
		t.Errorf("issue after the changes: closed %v, labels %v", is.Closed, is.Labels)
	}
	cs, err := ob.Comments(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, c := range cs {
		if c.Author != "person" {
			t.Errorf("comment %d written as %q, want person", c.ID, c.Author)
		}
		said = append(said, c.Body)
	}
	if !slices.Equal(said, []string{"looks good", "a duplicate of #2"}) {
		t.Errorf("comments: %q", said)
	}
	if n := count(h.events(), func(e ledger.Event) bool { return op(e) == opIssueChanged }); n != 5 {
		t.Errorf("%d ISSUE_CHANGED events, want 5", n)
	}
}
