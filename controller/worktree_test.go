package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// worktreeConfig runs script (instruction on stdin) in worktrees of repo.
func worktreeConfig(repo, script string) config.Config {
	cfg := shellConfig(script)
	cfg.Lanes[0].Dir = repo
	cfg.Lanes[0].Isolation = config.IsolationWorktree
	return cfg
}

// editScript appends the instruction to notes.txt and commits it.
const editScript = `read line; echo "$line" >> notes.txt; git add -A && git commit -qm "$line"`

func (h *harness) control(ctl relay.Control) (relay.Ack, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return h.client.Control(ctx, ctl)
}

func (h *harness) opFor(taskID, operation string) ledger.Event {
	h.t.Helper()
	return h.waitFor(operation, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == operation })
}

func (h *harness) typedFor(taskID, eventType string) ledger.Event {
	h.t.Helper()
	return h.waitFor(eventType, func(e ledger.Event) bool { return e.TaskID == taskID && e.EventType == eventType })
}

func TestWorktreeStepWaitsForReviewAndAcceptMerges(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	h := startHarness(t, t.TempDir(), worktreeConfig(repo, editScript))
	ack := h.forward("accept me")
	ready := h.opFor(ack.TaskID, OpWorktreeReady)
	path, branch := ready.Payload.String("path"), ready.Payload.String("branch")
	if branch != "daokit/"+ack.TaskID+"/"+ack.RunID+"/S1" || path != filepath.Join(h.root, WorktreesDir, ack.TaskID, ack.RunID, "S1") {
		t.Fatalf("WORKTREE_READY %v", ready.Payload)
	}
	if base := ready.Payload.String("base"); base != gittest.Git(t, repo, "rev-parse", "main") {
		t.Errorf("base %s is not main's tip", base)
	}
	h.opFor(ack.TaskID, OpReviewPending)
	if n := count(h.events(), func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventAcceptancePassed
	}); n != 0 {
		t.Fatal("accepted before the person said so")
	}
	if got := gittest.Git(t, repo, "show", "main:notes.txt"); got != "start" {
		t.Fatalf("main changed before accept: %q", got)
	}
	if snap := ledger.LoadSnapshot(h.root); snap.Pipeline.Value.Status != ledger.StatusAccept {
		t.Errorf("pipeline status %s, want ACCEPT", snap.Pipeline.Value.Status)
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	passed := h.typedFor(ack.TaskID, ledger.EventAcceptancePassed)
	if passed.Payload.String("commit") != gittest.Git(t, repo, "rev-parse", "main") {
		t.Errorf("ACCEPTANCE_PASSED %v; main is %s", passed.Payload, gittest.Git(t, repo, "rev-parse", "main"))
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	data, _ := os.ReadFile(filepath.Join(repo, "notes.txt"))
	if string(data) != "start\naccept me\n" {
		t.Errorf("base checkout notes.txt = %q", data)
	}
	h.opFor(ack.TaskID, OpWorktreeRemoved)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("the merged, clean worktree is still there")
	}
	gittest.Git(t, repo, "rev-parse", "--verify", branch) // the branch stays
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); relay.CodeOf(err) != codeNoReview {
		t.Errorf("accept with nothing in review: %v", err)
	}
}

func TestRejectKeepsTheBranchAndHandsTheReasonOn(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	h := startHarness(t, t.TempDir(), worktreeConfig(repo, `cat >> notes.txt; git add -A && git commit -qm step`))
	ack := h.forward("try once")
	ready := h.opFor(ack.TaskID, OpWorktreeReady)
	h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlReject, Reason: "use tabs"}); err != nil {
		t.Fatal(err)
	}
	failed := h.typedFor(ack.TaskID, ledger.EventAcceptanceFailed)
	if failed.Payload.String("reason") != "use tabs" || failed.Payload.String("reason_code") != ReasonRejected {
		t.Errorf("ACCEPTANCE_FAILED %v", failed.Payload)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusFailed || end.Payload.String("reason_code") != ReasonRejected {
		t.Fatalf("run ended %v", end.Payload)
	}
	branch, path := ready.Payload.String("branch"), ready.Payload.String("path")
	gittest.Git(t, repo, "rev-parse", "--verify", branch)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("rejected worktree removed: %v", err)
	}
	if got := gittest.Git(t, repo, "show", "main:notes.txt"); got != "start" {
		t.Errorf("main changed by a reject: %q", got)
	}
	// A retry runs the step again in the same worktree, told why.
	if _, err := h.control(relay.Control{Kind: relay.ControlRetry}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("second review", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == OpReviewPending && e.EventID != "" && count(h.events(), func(e ledger.Event) bool { return op(e) == OpReviewPending }) == 2
	})
	readies := 0
	for _, e := range h.events() {
		if e.TaskID == ack.TaskID && op(e) == OpWorktreeReady {
			readies++
			if readies == 2 && (!payloadTrue(e.Payload, "reused") || e.Payload.String("path") != path) {
				t.Errorf("retry did not reuse the worktree: %v", e.Payload)
			}
		}
	}
	notes, _ := os.ReadFile(filepath.Join(path, "notes.txt"))
	if !strings.Contains(string(notes), "use tabs") {
		t.Errorf("the retry was not told the reason: %q", notes)
	}
}

func TestParallelStepsSeparateWorktreesAndAConflictIsNotForced(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	cfg := worktreeConfig(repo, editScript)
	cfg.Lanes[0].Concurrency = 2
	h := startHarness(t, t.TempDir(), cfg)
	a, b := h.forward("first"), h.forward("second")
	pa, pb := h.opFor(a.TaskID, OpWorktreeReady).Payload.String("path"), h.opFor(b.TaskID, OpWorktreeReady).Payload.String("path")
	if pa == pb {
		t.Fatalf("both steps in %s", pa)
	}
	h.opFor(a.TaskID, OpReviewPending)
	h.opFor(b.TaskID, OpReviewPending)
	na, _ := os.ReadFile(filepath.Join(pa, "notes.txt"))
	nb, _ := os.ReadFile(filepath.Join(pb, "notes.txt"))
	if string(na) != "start\nfirst\n" || string(nb) != "start\nsecond\n" {
		t.Fatalf("worktrees saw each other: %q %q", na, nb)
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept, TaskID: a.TaskID, RunID: a.RunID}); err != nil {
		t.Fatal(err)
	}
	h.typedFor(a.TaskID, ledger.EventAcceptancePassed)
	main := gittest.Git(t, repo, "rev-parse", "main")
	// Both appended to notes.txt: accepting the second conflicts.
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept, TaskID: b.TaskID, RunID: b.RunID}); err != nil {
		t.Fatal(err)
	}
	refused := h.opFor(b.TaskID, OpMergeRefused)
	if refused.Payload.String("reason_code") != ReasonMergeConflict {
		t.Errorf("MERGE_REFUSED %v", refused.Payload)
	}
	if got := gittest.Git(t, repo, "rev-parse", "main"); got != main {
		t.Error("a conflicting accept moved main")
	}
	if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("the base checkout was touched: %q", st)
	}
	// Still in review: the person may reject it now.
	if _, err := h.control(relay.Control{Kind: relay.ControlReject, TaskID: b.TaskID, RunID: b.RunID, Reason: "conflicts"}); err != nil {
		t.Fatal(err)
	}
	h.typedFor(b.TaskID, ledger.EventAcceptanceFailed)
}

func TestInterruptedStepReusesItsWorktree(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	// The first worker waits forever; the second (after the restart) edits.
	script := `if [ ! -e ` + marker + ` ]; then touch ` + marker + `; echo waiting; exec sleep 60; fi; ` + editScript
	h := startHarness(t, root, worktreeConfig(repo, script))
	ack := h.forward("survive a restart")
	first := h.opFor(ack.TaskID, OpWorktreeReady)
	h.waitFor("worker output", func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opWorkerOutput })
	h.stop()
	h2 := startHarness(t, root, worktreeConfig(repo, script))
	h2.waitFor("second WORKTREE_READY", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == OpWorktreeReady && e.EventID != first.EventID
	})
	h2.opFor(ack.TaskID, OpReviewPending)
	var readies []ledger.Event
	for _, e := range h2.events() {
		if e.TaskID == ack.TaskID && op(e) == OpWorktreeReady {
			readies = append(readies, e)
		}
	}
	if len(readies) != 2 || !payloadTrue(readies[1].Payload, "reused") || readies[1].Payload.String("path") != first.Payload.String("path") {
		t.Fatalf("after the restart: %v", readies)
	}
	if list := gittest.Git(t, repo, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 2 {
		t.Errorf("want the main worktree and one step worktree:\n%s", list)
	}
}

// payloadTrue reports whether the payload's key is JSON true.
func payloadTrue(o ledger.Object, key string) bool {
	raw, ok := o.Get(key)
	return ok && string(raw) == "true"
}

// TestLoopSharesAWorktreeAndARejectIsTheNextIteration runs a coder →
// reviewer loop in one worktree for the run. The reviewer approves, the
// judge says done, and the person reviews the run's change: the reject's
// reason becomes the finding the next iteration's coder is told, in the
// same worktree; the accept then merges both iterations.
func TestLoopSharesAWorktreeAndARejectIsTheNextIteration(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	cfg := loopConfig("1", 1)
	for i := range cfg.Lanes {
		cfg.Lanes[i].Dir, cfg.Lanes[i].Isolation = repo, config.IsolationWorktree
	}
	cfg.Lanes[0].Command = []string{"sh", "-c", `cat >> notes.txt; git add -A && git commit -qm "iteration $DAOKIT_ITERATION"`}
	h := startHarness(t, t.TempDir(), cfg)
	ack := h.forward("write the notes")
	h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlReject, Reason: "mention the cache"}); err != nil {
		t.Fatal(err)
	}
	h.typedFor(ack.TaskID, ledger.EventAcceptanceFailed)
	h.waitFor("second review", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == OpReviewPending &&
			count(h.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpReviewPending }) == 2
	})
	paths := map[string]bool{}
	for _, e := range h.events() {
		if e.TaskID == ack.TaskID && op(e) == OpWorktreeReady {
			if e.StepID != runTreeKey {
				t.Errorf("WORKTREE_READY for step %s, want the run's", e.StepID)
			}
			paths[e.Payload.String("path")] = true
		}
	}
	if len(paths) != 1 {
		t.Fatalf("the run used %d worktrees, want 1: %v", len(paths), paths)
	}
	if n := count(h.events(), func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.StepID == "I2-coder" && e.EventType == ledger.EventStepStarted
	}); n != 1 {
		t.Fatalf("I2-coder started %d times, want 1", n)
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	notes := gittest.Git(t, repo, "show", "main:notes.txt")
	if !strings.Contains(notes, "write the notes") || !strings.Contains(notes, "mention the cache") {
		t.Errorf("main:notes.txt = %q; want both iterations, the second told the reason", notes)
	}
}

// TestSetupScriptRunsOnlyOnceAllowed: a repository's set-up script is
// skipped (and the skip recorded) until the person allows it for that
// repository; allowed, it runs in each new worktree; one that outlives
// its timeout fails the step.
func TestSetupScriptRunsOnlyOnceAllowed(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	if err := os.MkdirAll(filepath.Join(repo, ".daokit"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "if [ -e slow ]; then exec sleep 30; fi; echo prepared > prepared.txt\n"
	if err := os.WriteFile(filepath.Join(repo, ".daokit", "worktree-setup.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("prepared.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, repo, "add", "--all")
	gittest.Git(t, repo, "commit", "--quiet", "-m", "setup script")
	cfg := worktreeConfig(repo, `cat prepared.txt 2>/dev/null || echo none; `+editScript)
	cfg.Worktrees.SetupTimeout = config.Duration(time.Second)
	h := startHarness(t, t.TempDir(), cfg)

	first := h.forward("before allowing")
	skipped := h.opFor(first.TaskID, opWorktreeSetup)
	if payloadTrue(skipped.Payload, "ran") || skipped.Payload.String("reason_code") != ReasonSetupNotAllowed {
		t.Fatalf("setup before allowing: %v", skipped.Payload)
	}
	h.opFor(first.TaskID, OpReviewPending)
	path := h.opFor(first.TaskID, OpWorktreeReady).Payload.String("path")
	if _, err := os.Stat(filepath.Join(path, "prepared.txt")); err == nil {
		t.Fatal("the script ran without permission")
	}

	gittest.Git(t, repo, "config", "--local", "daokit.allowSetup", "true")
	second := h.forward("after allowing")
	ran := h.opFor(second.TaskID, opWorktreeSetup)
	if !payloadTrue(ran.Payload, "ran") || ran.Payload.String("reason_code") != "" {
		t.Fatalf("setup after allowing: %v", ran.Payload)
	}
	h.opFor(second.TaskID, OpReviewPending)
	path = h.opFor(second.TaskID, OpWorktreeReady).Payload.String("path")
	if got := readText(t, filepath.Join(path, "prepared.txt")); got != "prepared\n" {
		t.Errorf("prepared.txt = %q", got)
	}

	// A script that hangs: killed at the timeout, the step fails.
	if err := os.WriteFile(filepath.Join(repo, "slow"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, repo, "add", "slow")
	gittest.Git(t, repo, "commit", "--quiet", "-m", "slow setup")
	third := h.forward("slow setup")
	if end := h.finished(third.TaskID); end.Payload.String("reason_code") != ReasonSetupFailed {
		t.Fatalf("run ended %v, want %s", end.Payload, ReasonSetupFailed)
	}
}
