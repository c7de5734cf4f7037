package controller

import (
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestIndexKnowsAChangeNeverPutToThePerson: the instruction index keeps
// the worktree a run readied and whether its step completed without
// REVIEW_PENDING or an acceptance after it, through its checkpoint and
// through a replay of the log after it; REVIEW_PENDING ends the mark,
// and an acceptance of the worktree's branch drops the worktree too.
func TestIndexKnowsAChangeNeverPutToThePerson(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c, err := open(Options{Root: root, Config: shellConfig("true")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	f := c.events
	ready := func(id string) ledger.Event {
		return f.system(taskIDFor(id), "run-1", "S1", ledger.SeverityInfo, OpWorktreeReady,
			"path", "/w/"+id, "branch", "daokit/"+id, "base", "abc", "base_branch", "main", "repo", "/repo")
	}
	completed := func(id string) ledger.Event {
		return ledger.NewEvent(time.Now(), taskIDFor(id), "run-1", "S1", ledger.EventStepCompleted, ledger.SeverityInfo,
			ledger.ObjectOf("exit_code", 0))
	}
	// "ckpt" completes before the checkpoint; "asked" and "delivered"
	// go on after it; "replayed" is all after it.
	if err := c.journal.append(instructionEvent(f, "ckpt"), ready("ckpt"), completed("ckpt"),
		instructionEvent(f, "asked"), ready("asked"), completed("asked"),
		instructionEvent(f, "delivered"), ready("delivered"), completed("delivered")); err != nil {
		t.Fatal(err)
	}
	c.journal.close() // a checkpoint
	if err := c.store.AppendEvents([]ledger.Event{
		f.system(taskIDFor("asked"), "run-1", "S1", ledger.SeverityInfo, OpReviewPending,
			"path", "/w/asked", "branch", "daokit/asked", "base_branch", "main", "base", "abc", "repo", "/repo", "key", "S1"),
		ledger.NewEvent(time.Now(), taskIDFor("delivered"), "run-1", "S1", ledger.EventAcceptancePassed, ledger.SeverityInfo,
			ledger.ObjectOf("no_change", true, "branch", "daokit/delivered")),
		instructionEvent(f, "replayed"), ready("replayed"), completed("replayed"),
	}); err != nil {
		t.Fatal(err)
	}
	c.store.Close()
	x, load, err := loadIndex(c.store.Layout().StateDir())
	if err != nil {
		t.Fatal(err)
	}
	if load.Replayed != 5 {
		t.Errorf("replayed %d events, want the 5 after the checkpoint", load.Replayed)
	}
	got := map[string]indexEntry{}
	for _, en := range x.openEntries() {
		got[en.MessageID] = en
	}
	for id, want := range map[string]struct {
		tree, unreviewed bool
	}{"ckpt": {true, true}, "asked": {true, false}, "delivered": {false, false}, "replayed": {true, true}} {
		en := got[id]
		if (en.Tree != nil) != want.tree || en.Unreviewed != want.unreviewed {
			t.Errorf("%s: tree %+v, unreviewed %v; want tree %v, unreviewed %v", id, en.Tree, en.Unreviewed, want.tree, want.unreviewed)
		}
		if en.Tree != nil && (en.Tree.Key != "S1" || en.Tree.Path != "/w/"+id || en.Tree.Repo != "/repo" || en.Tree.Base != "abc") {
			t.Errorf("%s: tree %+v", id, en.Tree)
		}
	}
}
