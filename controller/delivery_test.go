package controller

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/config"

	"github.com/daokit/daokit/internal/gittest"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// TestAcceptCommitsWhatTheAgentLeftUncommitted: the worker edits a file
// and adds one, commits nothing (as Claude Code and Codex do), and the
// accept delivers both to main in a commit by the configured author whose
// message names the task, run and step; the ledger records main's new
// tip.
func TestAcceptCommitsWhatTheAgentLeftUncommitted(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	cfg := worktreeConfig(repo, `read line; echo "$line" >> notes.txt; echo fresh > added.txt; echo '@daokit {"type":"result","summary":"edited notes.txt and added added.txt"}'`)
	cfg.Worktrees.CommitAuthor = "Review Bot <bot@example.com>"
	h := startHarness(t, t.TempDir(), cfg)
	before := gittest.Git(t, repo, "rev-parse", "main")
	ack := h.forward("write it down")
	h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	passed := h.typedFor(ack.TaskID, ledger.EventAcceptancePassed)
	main := gittest.Git(t, repo, "rev-parse", "main")
	if main == before {
		t.Fatal("main did not move")
	}
	if passed.Payload.String("commit") != main || payloadTrue(passed.Payload, "already") || passed.Payload.String("committed") == "" {
		t.Errorf("ACCEPTANCE_PASSED %v; main is %s", passed.Payload, main)
	}
	if got := gittest.Git(t, repo, "show", "main:notes.txt"); got != "start\nwrite it down" {
		t.Errorf("main:notes.txt = %q", got)
	}
	if got := gittest.Git(t, repo, "show", "main:added.txt"); got != "fresh" {
		t.Errorf("main:added.txt = %q", got)
	}
	if got := gittest.Git(t, repo, "log", "-1", "--format=%an <%ae>", passed.Payload.String("committed")); got != "Review Bot <bot@example.com>" {
		t.Errorf("author %q", got)
	}
	msg := gittest.Git(t, repo, "log", "-1", "--format=%B", passed.Payload.String("committed"))
	for _, want := range []string{"daokit: write it down", "Review: edited notes.txt and added added.txt",
		"Daokit-Task: " + ack.TaskID, "Daokit-Run: " + ack.RunID, "Daokit-Step: S1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	h.opFor(ack.TaskID, OpWorktreeRemoved)
}

// TestAcceptDeliversCommitsOnADetachedHead: the agent detaches HEAD and
// commits there; the accept delivers that commit (it would be lost with
// the worktree otherwise) and the step's branch holds it.
func TestAcceptDeliversCommitsOnADetachedHead(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	h := startHarness(t, t.TempDir(), worktreeConfig(repo,
		`read line; git checkout -q --detach && echo "$line" >> notes.txt && git commit -qam "detached: $line"`))
	ack := h.forward("on a detached head")
	ready := h.opFor(ack.TaskID, OpWorktreeReady)
	h.opFor(ack.TaskID, OpReviewPending)
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	passed := h.typedFor(ack.TaskID, ledger.EventAcceptancePassed)
	if !payloadTrue(passed.Payload, "detached") || passed.Payload.String("committed") != "" {
		t.Errorf("ACCEPTANCE_PASSED %v", passed.Payload)
	}
	if got := gittest.Git(t, repo, "log", "-1", "--format=%s", "main"); got != "detached: on a detached head" {
		t.Errorf("main's tip is %q", got)
	}
	if gittest.Git(t, repo, "rev-parse", ready.Payload.String("branch")) != passed.Payload.String("tip") {
		t.Error("the step's branch does not hold the detached commit")
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
}

// TestAcceptOfNothingIsNotAMerge: a change undone in its worktree while
// it waited for review (a step that changed nothing never waits: see
// TestAStepThatChangedNothingEndsDone) is not recorded as merged; the
// refusal says why and the change still waits, so the person can
// reject it.
func TestAcceptOfNothingIsNotAMerge(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	h := startHarness(t, t.TempDir(), worktreeConfig(repo, `read line; echo "$line" >> notes.txt`))
	main := gittest.Git(t, repo, "rev-parse", "main")
	ack := h.forward("change nothing")
	pending := h.opFor(ack.TaskID, OpReviewPending)
	gittest.Git(t, pending.Payload.String("path"), "checkout", "--", "notes.txt")
	if _, err := h.control(relay.Control{Kind: relay.ControlAccept}); err != nil {
		t.Fatal(err)
	}
	refused := h.opFor(ack.TaskID, OpMergeRefused)
	if refused.Payload.String("reason_code") != ReasonNothingToDeliver {
		t.Errorf("MERGE_REFUSED %v", refused.Payload)
	}
	if n := count(h.events(), func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && e.EventType == ledger.EventAcceptancePassed
	}); n != 0 {
		t.Error("ACCEPTANCE_PASSED recorded for nothing")
	}
	if gittest.Git(t, repo, "rev-parse", "main") != main {
		t.Error("main moved")
	}
	if _, err := h.control(relay.Control{Kind: relay.ControlReject, Reason: "nothing done"}); err != nil {
		t.Fatalf("the change no longer waits for review: %v", err)
	}
	if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusFailed {
		t.Fatalf("run ended %v", end.Payload)
	}
}

// TestReviewsOfEveryRunSurviveARestart: two runs wait for review; the
// pipeline file shows only the later one. After a restart both wait
// again (the log restores the other) and each accept delivers its own
// uncommitted change.
func TestReviewsOfEveryRunSurviveARestart(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	root := t.TempDir()
	cfg := worktreeConfig(repo, `read line; echo "$line" > "$line.txt"`)
	cfg.Lanes[0].Concurrency = 2
	h := startHarness(t, root, cfg)
	a, b := h.forward("first"), h.forward("second")
	h.opFor(a.TaskID, OpReviewPending)
	h.opFor(b.TaskID, OpReviewPending)
	h.stop()
	h2 := startHarness(t, root, cfg)
	for _, ack := range []relay.Ack{a, b} {
		h2.waitFor("the review again", func(e ledger.Event) bool {
			return e.TaskID == ack.TaskID && op(e) == OpReviewPending &&
				count(h2.events(), func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == OpReviewPending }) == 2
		})
	}
	for _, ack := range []relay.Ack{a, b} {
		if _, err := h2.control(relay.Control{Kind: relay.ControlAccept, TaskID: ack.TaskID, RunID: ack.RunID}); err != nil {
			t.Fatalf("accept %s after the restart: %v", ack.TaskID, err)
		}
		h2.typedFor(ack.TaskID, ledger.EventAcceptancePassed)
		if end := h2.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
			t.Fatalf("run ended %v", end.Payload)
		}
	}
	if files := gittest.Git(t, repo, "ls-tree", "--name-only", "main"); files != "first.txt\nnotes.txt\nsecond.txt" {
		t.Errorf("main holds %q", files)
	}
}

// TestRetryAfterARestart: a run that ended FAILED waits for the person's
// /retry; a later run succeeds and takes the pipeline file. After a
// restart the successor still knows the failed run (it is listed, /retry
// finds it by its ids), a bare /retry does not revive it, and the retry
// runs it again to DONE.
func TestRetryAfterARestart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	marker := filepath.Join(t.TempDir(), "fixed")
	// Fails until the marker exists.
	cfg := shellConfig(`cat >/dev/null; if [ -e ` + marker + ` ]; then echo fixed; else echo broken; exit 3; fi`)
	cfg.Restart.MaxRestarts = 1
	h := startHarness(t, root, cfg)
	failed := h.forward("fail first")
	if end := h.finished(failed.TaskID); end.Payload.String("status") == ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	gittest.WriteFile(t, marker, "")
	later := h.forward("succeed later")
	if end := h.finished(later.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the later run ended %v", end.Payload)
	}
	h.stop()
	h2 := startHarness(t, root, cfg)
	st, err := h2.client.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, r := range st.Runs {
		listed = listed || (r.TaskID == failed.TaskID && r.State == stateFailed)
	}
	if !listed {
		t.Errorf("the failed run is not listed after the restart: %+v", st.Runs)
	}
	if _, err := h2.control(relay.Control{Kind: relay.ControlRetry}); err == nil {
		t.Error("a bare /retry after the restart revived a run; the latest run is DONE")
	}
	if _, err := h2.control(relay.Control{Kind: relay.ControlRetry, TaskID: failed.TaskID, RunID: failed.RunID}); err != nil {
		t.Fatalf("retry after the restart: %v", err)
	}
	h2.waitFor("the retried run DONE", func(e ledger.Event) bool {
		return e.TaskID == failed.TaskID && op(e) == opRunFinished && e.Payload.String("status") == ledger.StatusDone
	})
	// Attempt numbers go on across the restart policy, the controller
	// and the retry: one number names one attempt of the step for good
	// (a hub dispatch's record of its attempt relies on it).
	var attempts []int
	for _, e := range h2.events() {
		if e.TaskID == failed.TaskID && e.EventType == ledger.EventStepStarted {
			attempts = append(attempts, payloadInt(e.Payload, "attempt"))
		}
	}
	if !slices.Equal(attempts, []int{1, 2, 3}) {
		t.Errorf("the step's attempts are numbered %v, want [1 2 3]", attempts)
	}
}

// TestLoopReviewSurvivesARestart: a loop's change (one worktree for the
// run, reviewed after the judge) waits for review when the controller
// stops, and a later run takes over the pipeline file; the successor
// still waits for the verdict on the loop's change, and the accept
// delivers the coder's uncommitted work with the reviewer's verdict in
// the commit message.
func TestLoopReviewSurvivesARestart(t *testing.T) {
	t.Parallel()
	repo := gittest.NewRepo(t, map[string]string{"notes.txt": "start\n"})
	root := t.TempDir()
	cfg := loopConfig("1", 1)
	for i := range cfg.Lanes {
		cfg.Lanes[i].Dir, cfg.Lanes[i].Isolation, cfg.Lanes[i].Concurrency = repo, config.IsolationWorktree, 2
	}
	cfg.Lanes[0].Command = []string{"sh", "-c", `cat >> notes.txt`}
	h := startHarness(t, root, cfg)
	loop := h.forward("write the notes")
	h.opFor(loop.TaskID, OpReviewPending)
	later := h.forward("another run")
	h.opFor(later.TaskID, OpReviewPending)
	h.stop()
	h2 := startHarness(t, root, cfg)
	h2.waitFor("the loop's review again", func(e ledger.Event) bool {
		return e.TaskID == loop.TaskID && op(e) == OpReviewPending &&
			count(h2.events(), func(e ledger.Event) bool { return e.TaskID == loop.TaskID && op(e) == OpReviewPending }) == 2
	})
	if _, err := h2.control(relay.Control{Kind: relay.ControlAccept, TaskID: loop.TaskID, RunID: loop.RunID}); err != nil {
		t.Fatalf("accept after the restart: %v", err)
	}
	passed := h2.waitFor("the merge", func(e ledger.Event) bool {
		return e.TaskID == loop.TaskID && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("commit") != ""
	})
	if end := h2.finished(loop.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("run ended %v", end.Payload)
	}
	if got := gittest.Git(t, repo, "show", "main:notes.txt"); !strings.Contains(got, "write the notes") {
		t.Errorf("main:notes.txt = %q", got)
	}
	if passed.Payload.String("committed") == "" {
		t.Fatalf("ACCEPTANCE_PASSED %v", passed.Payload)
	}
	msg := gittest.Git(t, repo, "log", "-1", "--format=%B", passed.Payload.String("committed"))
	if !strings.Contains(msg, "Review: ") || !strings.Contains(msg, "Daokit-Step: ") {
		t.Errorf("commit message:\n%s", msg)
	}
}
