package controller

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// noChangeFor waits for the ACCEPTANCE_PASSED of taskID that says its
// step changed nothing.
func (h *harness) noChangeFor(taskID string) ledger.Event {
	h.t.Helper()
	return h.waitFor("ACCEPTANCE_PASSED no_change", func(e ledger.Event) bool {
		return e.TaskID == taskID && e.EventType == ledger.EventAcceptancePassed && payloadTrue(e.Payload, "no_change")
	})
}

// reviewsOf counts the REVIEW_PENDING events of taskID.
func (h *harness) reviewsOf(taskID string) int {
	return count(h.events(), func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == OpReviewPending })
}

// TestAStepThatChangedNothingEndsDone: an agent that looked and changed
// nothing (an answer, a review with nothing to fix) does not wait for a
// review that /accept could never end: its run ends DONE, the acceptance
// says no_change and why, the pipeline marks the step, nothing merged
// and its clean worktree is gone (its branch stays).
func TestAStepThatChangedNothingEndsDone(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	h := startHarness(t, t.TempDir(), worktreeConfig(repo, `cat >/dev/null; cat notes.txt; echo '@daokit {"type":"result","summary":"the notes are fine"}'`))
	main := gittest.Git(t, repo, "rev-parse", "main")
	ack := h.forward("are the notes fine?")
	ready := h.opFor(ack.TaskID, OpWorktreeReady)
	passed := h.noChangeFor(ack.TaskID)
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if got, _ := passed.Payload.Get("criteria"); !strings.Contains(string(got), criterionNoChange) || passed.Payload.String("base") != main {
		t.Errorf("ACCEPTANCE_PASSED %v", passed.Payload)
	}
	if n := h.reviewsOf(ack.TaskID); n != 0 {
		t.Errorf("%d REVIEW_PENDING for a step that changed nothing", n)
	}
	removed := h.opFor(ack.TaskID, OpWorktreeRemoved)
	if _, err := os.Stat(ready.Payload.String("path")); !os.IsNotExist(err) || removed.Payload.String("path") != ready.Payload.String("path") {
		t.Errorf("worktree %s still there (%v)", ready.Payload.String("path"), err)
	}
	if gittest.Git(t, repo, "rev-parse", "main") != main {
		t.Error("main moved")
	}
	gittest.Git(t, repo, "rev-parse", "--verify", ready.Payload.String("branch"))
	p := h.pipeline()
	if got := workflow.ProgressOf(p.RoleLifecycle.Get).NoChange; !slices.Equal(got, []string{"S1"}) || p.Status != ledger.StatusDone {
		t.Errorf("pipeline %s, no change %v", p.Status, got)
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err == nil {
		t.Error("/accept found a change waiting for review")
	}
}

// TestAStepThatLeftOnlyIgnoredFilesEndsDone: build output the
// repository ignores is no change to deliver, but it is kept: the
// worktree stays (as prune would keep it) and says why.
func TestAStepThatLeftOnlyIgnoredFilesEndsDone(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n", ".gitignore": "out/\n"})
	h := startHarness(t, t.TempDir(), worktreeConfig(repo, `cat >/dev/null; mkdir -p out && echo built > out/bin`))
	ack := h.forward("build it")
	h.noChangeFor(ack.TaskID)
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	kept := h.opFor(ack.TaskID, OpWorktreeKept)
	if got, _ := kept.Payload.Get("kept"); string(got) != `["dirty"]` {
		t.Errorf("WORKTREE_KEPT %v", kept.Payload)
	}
	if _, err := os.Stat(filepath.Join(kept.Payload.String("path"), "out", "bin")); err != nil {
		t.Errorf("the ignored file is gone: %v", err)
	}
}

// TestALoopThatChangedNothingEndsDone: a loop whose coder changed
// nothing and whose reviewer approved ends DONE after its judge, without
// a review of its shared worktree.
func TestALoopThatChangedNothingEndsDone(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	cfg := loopConfig("1", 2)
	for i := range cfg.Lanes {
		cfg.Lanes[i].Dir, cfg.Lanes[i].Isolation = repo, config.IsolationWorktree
	}
	cfg.Lanes[0].Command = []string{"sh", "-c", `cat >/dev/null; echo nothing to change`}
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("check the notes")
	passed := h.noChangeFor(ack.TaskID)
	if passed.Payload.String("key") != runTreeKey {
		t.Errorf("ACCEPTANCE_PASSED %v", passed.Payload)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if n := h.reviewsOf(ack.TaskID); n != 0 {
		t.Errorf("%d REVIEW_PENDING for a loop that changed nothing", n)
	}
	h.opFor(ack.TaskID, OpWorktreeRemoved)
}

// TestAReviewWhoseChangeWentAwayEndsDoneAfterARestart: a change waits
// for review; the person undoes it in the worktree; after a restart the
// restored review finds nothing to deliver and the run ends DONE, with
// one acceptance, instead of waiting for a reject.
func TestAReviewWhoseChangeWentAwayEndsDoneAfterARestart(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	root := t.TempDir()
	cfg := worktreeConfig(repo, `read line; echo "$line" >> notes.txt`)
	h := startHarness(t, root, cfg)
	ack := h.forward("a change")
	pending := h.opFor(ack.TaskID, OpReviewPending)
	h.stop()
	gittest.Git(t, pending.Payload.String("path"), "checkout", "--", "notes.txt")
	h2 := startHarness(t, root, cfg)
	h2.noChangeFor(ack.TaskID)
	if end := h2.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if n := count(h2.events(), func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventAcceptancePassed
	}); n != 1 {
		t.Errorf("%d acceptances", n)
	}
	if n := h2.reviewsOf(ack.TaskID); n != 1 {
		t.Errorf("%d REVIEW_PENDING: the restored review waited again", n)
	}
}

// pipeline reads the root's pipeline file.
func (h *harness) pipeline() ledger.PipelineState {
	h.t.Helper()
	data, err := ledger.Layout{Root: h.root}.ReadFile(ledger.PipelineFile)
	if err != nil {
		h.t.Fatal(err)
	}
	p, err := ledger.ParsePipelineState(data)
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

// A controller that dies right after it recorded that a loop's shared
// worktree held no change (the sync of that ACCEPTANCE_PASSED held, the
// root copied as a SIGKILL there leaves it): the successor ends the run
// DONE without a review, without a second acceptance and without asking
// a worker or the judge again.
func TestNoChangeSurvivesACrashAtItsRecord(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	root := t.TempDir()
	cfg := loopConfig("1", 1)
	for i := range cfg.Lanes {
		cfg.Lanes[i].Dir, cfg.Lanes[i].Isolation = repo, config.IsolationWorktree
	}
	cfg.Lanes[0].Command = []string{"sh", "-c", `cat >/dev/null; echo run >> "$DAOKIT_ROOT/coder-runs"`}
	crash := newCrashImage(`"event_type":"ACCEPTANCE_PASSED"`, `"no_change":true`)
	h := crash.start(t, root, cfg)
	ack := h.forward("check the notes")
	crash.wait(t)
	image := copyRoot(t, root)
	crash.free()
	h.finished(ack.TaskID)
	h.stop()

	next := startHarness(t, image, cfg)
	if fin := next.finished(ack.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the successor's run ended %v", fin.Payload)
	}
	events := next.events()
	next.stop()
	if n := count(events, func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventAcceptancePassed && payloadTrue(e.Payload, "no_change")
	}); n != 1 {
		t.Errorf("%d no-change acceptances, want the one recorded before the crash", n)
	}
	if n := count(events, func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpReviewPending }); n != 0 {
		t.Errorf("%d REVIEW_PENDING after the crash", n)
	}
	if n := lines(t, filepath.Join(image, "coder-runs")); n != 1 {
		t.Errorf("the coder ran %d times, want once", n)
	}
}
