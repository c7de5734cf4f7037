package controller

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// A controller killed after a step in a worktree completed and before
// its change was put to the person (STEP_COMPLETED durable,
// REVIEW_PENDING not) must leave a successor that never ends the run
// DONE with the change unmerged in its worktree: the change waits for
// review, or, when the step changed nothing, the run ends DONE with
// no_change. The worker never runs again.
//
// Each case holds the log's sync of the step's STEP_COMPLETED and copies
// the root as a SIGKILL there leaves it: before the pipeline file shows
// the run (the document writer lingers), or once it shows the step
// completed. (The pipeline file that already shows the review, written
// just before REVIEW_PENDING, cannot be held apart from it this way: the
// log's batch that follows STEP_COMPLETED carries both; such a pipeline
// keeps the run waiting by itself.)
func TestAChangeSurvivesACrashBeforeItsReview(t *testing.T) {
	t.Parallel()
	stepCompleted := func(p ledger.PipelineState) bool { return p.RoleLifecycle.Get("step:S1") == "completed" }
	for _, tc := range []struct {
		name string
		edit bool
		// pipeline, if set, is the state the pipeline file shows before
		// the copy.
		pipeline func(ledger.PipelineState) bool
	}{
		{name: "change", edit: true},
		{name: "change, pipeline written", edit: true, pipeline: stepCompleted},
		{name: "no change"},
		{name: "no change, pipeline written", pipeline: stepCompleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
			root := t.TempDir()
			script := `read line; echo run >> "$DAOKIT_ROOT/runs"`
			if tc.edit {
				script += `; echo "$line" >> notes.txt`
			}
			cfg := worktreeConfig(repo, script)
			crash := newCrashImage(`"event_type":"STEP_COMPLETED"`)
			h := crash.start(t, root, cfg)
			ack := h.forward("a change")
			crash.wait(t)
			if tc.pipeline != nil {
				waitPipeline(t, root, func(p ledger.PipelineState) bool { return p.TaskID == ack.TaskID && tc.pipeline(p) })
			}
			if n := count(h.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpReviewPending }); n != 0 {
				t.Fatalf("REVIEW_PENDING reached the log before the crash")
			}
			image := copyRoot(t, root)
			crash.free()
			h.stop()

			next := startHarness(t, image, cfg)
			if !tc.edit {
				next.noChangeFor(ack.TaskID)
				if end := next.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
					t.Fatalf("run ended %v", end.Payload)
				}
				if n := next.reviewsOf(ack.TaskID); n != 0 {
					t.Errorf("%d REVIEW_PENDING for a step that changed nothing", n)
				}
			} else {
				acceptAfterCrash(t, next, ack)
				if got := gittest.Git(t, repo, "show", "main:notes.txt"); got != "start\na change" {
					t.Errorf("main's notes.txt %q", got)
				}
			}
			if n := count(next.events(), func(e ledger.Event) bool {
				return e.TaskID == ack.TaskID && e.EventType == ledger.EventAcceptancePassed
			}); n != 1 {
				t.Errorf("%d acceptances", n)
			}
			if n := lines(t, filepath.Join(image, "runs")); n != 1 {
				t.Errorf("the worker ran %d times, want once", n)
			}
		})
	}
}

// TestALoopsChangeSurvivesACrashBeforeItsReview: the same for a loop,
// whose shared worktree is reviewed after its judge: a controller killed
// after the judge's decision was recorded and before REVIEW_PENDING
// leaves a successor that puts the change to the person, with no worker
// or judge asked again; also when the pipeline file shows another run
// (a later instruction, its coder still at work), so that only the log
// knows the loop's worktree.
func TestALoopsChangeSurvivesACrashBeforeItsReview(t *testing.T) {
	t.Parallel()
	for _, other := range []bool{false, true} {
		name := "alone"
		if other {
			name = "another run in the pipeline file"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
			root := t.TempDir()
			cfg := loopConfig("1", 1)
			for i := range cfg.Lanes {
				cfg.Lanes[i].Dir, cfg.Lanes[i].Isolation = repo, config.IsolationWorktree
			}
			// The instruction "hold" keeps its coder at work until the
			// controller stops it.
			cfg.Lanes[0].Command = []string{"sh", "-c", `in=$(cat); case "$in" in *hold*) exec sleep 600;; esac; ` +
				`echo more >> notes.txt; echo run >> "$DAOKIT_ROOT/coder-runs"`}
			crash := newCrashImage(`"operation":"STEP_RECORDED"`, `"role":"judge"`)
			h := crash.start(t, root, cfg)
			ack := h.forward("add a line")
			if other {
				later := h.forward("hold")
				waitPipeline(t, root, func(p ledger.PipelineState) bool { return p.TaskID == later.TaskID })
			}
			crash.wait(t)
			image := copyRoot(t, root)
			crash.free()
			h.stop()

			next := startHarness(t, image, cfg)
			acceptAfterCrash(t, next, ack)
			if got := gittest.Git(t, repo, "show", "main:notes.txt"); got != "start\nmore" {
				t.Errorf("main's notes.txt %q", got)
			}
			if n := lines(t, filepath.Join(image, "coder-runs")); n != 1 {
				t.Errorf("the coder ran %d times, want once", n)
			}
			if n := count(next.events(), func(e ledger.Event) bool {
				return e.TaskID == ack.TaskID && op(e) == opStepRecorded && e.Payload.String("role") == "judge"
			}); n != 1 {
				t.Errorf("the judge decided %d times, want once", n)
			}
		})
	}
}

// waitPipeline polls root's pipeline file until ok says yes.
func waitPipeline(t *testing.T, root string, ok func(ledger.PipelineState) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := (ledger.Layout{Root: root}).ReadFile(ledger.PipelineFile); err == nil {
			if p, err := ledger.ParsePipelineState(data); err == nil && ok(p) {
				return
			}
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // polling the file; the condition decides
	}
	t.Fatal("the pipeline file never showed the state")
}

// TestADeliveredLoopIsNotReviewedAgainAfterACrash: the log's worktree of
// a loop (see restoreTree) must not bring back a review the person
// already ended: a controller killed right after it recorded the
// accepted merge (before RUN_FINISHED), while the pipeline file shows
// another run, leaves a successor that ends the run DONE without asking
// again.
func TestADeliveredLoopIsNotReviewedAgainAfterACrash(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	root := t.TempDir()
	cfg := loopConfig("1", 1)
	for i := range cfg.Lanes {
		cfg.Lanes[i].Dir, cfg.Lanes[i].Isolation = repo, config.IsolationWorktree
	}
	cfg.Lanes[0].Command = []string{"sh", "-c", `in=$(cat); case "$in" in *hold*) exec sleep 600;; esac; echo more >> notes.txt`}
	crash := newCrashImage(`"event_type":"ACCEPTANCE_PASSED"`, `"fast_forward"`)
	h := crash.start(t, root, cfg)
	ack := h.forward("add a line")
	h.opFor(ack.TaskID, OpReviewPending)
	later := h.forward("hold")
	waitPipeline(t, root, func(p ledger.PipelineState) bool { return p.TaskID == later.TaskID })
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept, TaskID: ack.TaskID, RunID: ack.RunID}); err != nil {
		t.Fatal(err)
	}
	crash.wait(t)
	image := copyRoot(t, root)
	crash.free()
	h.stop()

	next := startHarness(t, image, cfg)
	if end := next.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if n := next.reviewsOf(ack.TaskID); n != 1 {
		t.Errorf("%d REVIEW_PENDING: the delivered change was put to the person again", n)
	}
	if got := gittest.Git(t, repo, "show", "main:notes.txt"); got != "start\nmore" {
		t.Errorf("main's notes.txt %q", got)
	}
}

// acceptAfterCrash: the successor shows the change waiting for review
// again (it must not end the run without one), and a person's /accept
// ends the run DONE.
func acceptAfterCrash(t *testing.T, next *harness, ack relay.Ack) {
	t.Helper()
	next.waitFor("REVIEW_PENDING or RUN_FINISHED", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && (op(e) == OpReviewPending || op(e) == opRunFinished)
	})
	if n := count(next.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opRunFinished }); n != 0 {
		t.Fatalf("the successor ended the run without a review: %s", next.finished(ack.TaskID).Payload.String("status"))
	}
	if _, err := next.control(relay.Control{Kind: relay.ControlAccept, TaskID: ack.TaskID, RunID: ack.RunID}); err != nil {
		t.Fatalf("accept after the crash: %v", err)
	}
	if end := next.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
}
