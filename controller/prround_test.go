package controller

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// TestRejectOfAnOpenPullRequestGoesRoundAgain, on GitHub and GitLab: the
// loop's accepted change became a pull request (merge request) and the
// run ended DONE; people reviewed it on the forge. The person's /reject
// of the DONE run starts a third iteration whose coder is told the
// reason and the review's comments as findings; the next /accept pushes
// the new commit to the same branch (a fast-forward of what origin held)
// and finds the same change request: one of it, one POST. "restart"
// stops the controller between DONE and the reject; "killed" also drops
// the index checkpoint and the worktree, as a SIGKILL before any
// checkpoint and a person's cleanup leave them: the successor knows the
// run from the log alone and checks the pushed branch out again.
// "behind" restarts while another task's change waits for review, so
// the pipeline file shows that run and the DONE one is rebuilt from the
// index.
func TestRejectOfAnOpenPullRequestGoesRoundAgain(t *testing.T) {
	for _, name := range []string{"github", "gitlab"} {
		for _, mode := range []string{"live", "restart", "killed", "behind"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				f := map[string]func(*testing.T) reviewForge{"github": githubReviewForge, "gitlab": gitlabReviewForge}[name](t)
				for i := range f.cfg.Lanes {
					if f.cfg.Lanes[i].Name == "coder" {
						f.cfg.Lanes[i].Command = []string{"sh", "-c",
							`cat > "$ENV_DIR/brief-$DAOKIT_ITERATION.txt"; echo "iteration $DAOKIT_ITERATION" >> notes.txt`}
					}
				}
				root := t.TempDir()
				h := startHarness(t, root, f.cfg)
				ack := h.forward("handle the empty body")
				pending := h.opFor(ack.TaskID, OpReviewPending)
				if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
					t.Fatal(err)
				}
				if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
					t.Fatalf("run ended %v", end.Payload)
				}
				branch, tree := pending.Payload.String("branch"), pending.Payload.String("path")
				bare := f.bare
				first := gittest.Git(t, bare, "rev-parse", "refs/heads/"+branch)
				if f.opened() != 1 {
					t.Fatalf("%d change requests after the accept", f.opened())
				}
				f.comment()
				if mode == "behind" {
					// Another task's change waits for review: the pipeline
					// file shows that run, not the DONE one.
					other := h.forward("handle the long body")
					h.opFor(other.TaskID, OpReviewPending)
				}
				if mode != "live" {
					h.stop()
					if mode == "killed" {
						dropCheckpoint(t, root)
						if err := os.RemoveAll(tree); err != nil {
							t.Fatal(err)
						}
					}
					h = startHarness(t, root, f.cfg)
				}
				if _, err := h.control(relay.Control{Kind: relay.ControlReject, TaskID: ack.TaskID, RunID: ack.RunID, Reason: "also log it"}); err != nil {
					t.Fatalf("reject of the DONE run: %v", err)
				}
				read := h.opFor(ack.TaskID, OpPullRequestReview)
				if got := read.Payload.String("forge"); got != name || read.Payload.String("url") == "" {
					t.Errorf("PULL_REQUEST_REVIEW %v", read.Payload)
				}
				h.waitFor("the second review", func(ledger.Event) bool { return h.reviewsOf(ack.TaskID) == 2 })
				brief, err := os.ReadFile(filepath.Join(f.envDir, "brief-3.txt"))
				if err != nil {
					t.Fatalf("no third iteration: %v", err)
				}
				want := []string{"- also log it", "notes.txt:3: say why iteration 2 changed (@bob)", "log the empty body too (@carl)"}
				for _, w := range want {
					if !strings.Contains(string(brief), w) {
						t.Errorf("the third iteration's brief lacks %q:\n%s", w, brief)
					}
				}
				if strings.Contains(string(brief), "daokit {") {
					t.Errorf("the brief holds daokit's own comment:\n%s", brief)
				}
				if _, err := h.control(relay.Control{Kind: relay.ControlAccept, TaskID: ack.TaskID, RunID: ack.RunID}); err != nil {
					t.Fatal(err)
				}
				ends := func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opRunFinished }
				h.waitFor("the second RUN_FINISHED", func(ledger.Event) bool { return count(h.events(), ends) == 2 })
				var last, opened ledger.Event
				for _, e := range h.events() {
					if ends(e) {
						last = e
					}
					if e.TaskID == ack.TaskID && op(e) == OpPullRequest {
						opened = e
					}
				}
				if last.Payload.String("status") != ledger.StatusDone {
					t.Fatalf("the second round ended %v", last.Payload)
				}
				if f.opened() != 1 || f.posts() != 1 {
					t.Fatalf("%d change requests after %d POSTs, want one of each", f.opened(), f.posts())
				}
				pushed := gittest.Git(t, bare, "rev-parse", "refs/heads/"+branch)
				if pushed == first || opened.Payload.String("tip") != pushed || payloadTrue(opened.Payload, "created") {
					t.Errorf("origin's %s went %s → %s; the last PULL_REQUEST %v", branch, first, pushed, opened.Payload)
				}
				gittest.Git(t, bare, "merge-base", "--is-ancestor", first, pushed) // never forced: it builds on the first
				if got := gittest.Git(t, bare, "show", "refs/heads/"+branch+":notes.txt"); !strings.HasSuffix(got, "iteration 2\niteration 3") {
					t.Errorf("the pushed branch holds notes.txt = %q", got)
				}
			})
		}
	}
}

// TestRejectOfAMergedDoneRunIsRefused: a DONE run whose change was
// merged (no pull request) has nothing to send round again: /reject is
// refused as before, and nothing runs.
func TestRejectOfAMergedDoneRunIsRefused(t *testing.T) {
	rig := newPRRig(t)
	cfg := rig.loopConfig()
	for i := range cfg.Lanes {
		cfg.Lanes[i].Deliver = ""
	}
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("handle the empty body")
	h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	_, err := h.control(relay.Control{Kind: relay.ControlReject, TaskID: ack.TaskID, RunID: ack.RunID, Reason: "again"})
	var re *relay.Error
	if !errors.As(err, &re) || re.Code != codeNoReview {
		t.Fatalf("reject of a merged DONE run: %v, want %s", err, codeNoReview)
	}
	if n := count(h.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opRunFinished }); n != 1 {
		t.Errorf("%d RUN_FINISHED, want 1", n)
	}
}

// dropCheckpoint removes the instruction index's checkpoint under root:
// the successor folds the whole log, as after a SIGKILL before the first
// checkpoint.
func dropCheckpoint(t *testing.T, root string) {
	t.Helper()
	found := false
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == indexCheckpointFile && filepath.Base(filepath.Dir(path)) == indexDir {
			found = os.Remove(path) == nil
		}
		return nil
	})
	if !found {
		t.Fatal("no index checkpoint to drop")
	}
}
