package controller

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// gatedCoder keeps what each coder was told in coder-<task>-<iteration>.txt
// and, in iteration 1 of an instruction that says GATED, waits until the
// test writes a line into the fifo "gate": the test then knows the
// first iteration's brief was made before its follow-up arrived.
const gatedCoder = `f="$DAOKIT_ROOT/coder-$DAOKIT_TASK_ID-$DAOKIT_ITERATION.txt"; cat > "$f"; ` +
	`if [ "$DAOKIT_ITERATION" = 1 ] && grep -q GATED "$f"; then read _ < "$DAOKIT_ROOT/gate"; fi; echo edited`

func followUpConfig() config.Config {
	cfg := loopConfig("2", 3)
	cfg.Lanes[0].Command = []string{"sh", "-c", gatedCoder}
	// The gated coder is silent while it waits: no liveness verdict on it.
	cfg.Heartbeat.WarningAfter, cfg.Heartbeat.StaleAfter = config.Duration(time.Minute), config.Duration(2*time.Minute)
	return cfg
}

// A follow-up sent while a task's first iteration runs reaches the brief
// of its second iteration through the controller's real loop, and no
// other task's brief.
func TestFollowUpReachesTheNextIterationsBrief(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, root, followUpConfig())
	first := h.forward("GATED add a --json flag to status")
	task := first.Route.TaskID
	brief1 := filepath.Join(root, "coder-"+task+"-1.txt")
	h.waitFile(brief1)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ack, err := h.client.FollowUp(ctx, task, "", "also print it sorted by name")
	if err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	if ack.Route.TaskID != task || ack.Route.RunID != first.Route.RunID {
		t.Fatalf("follow-up routed to %s/%s, want the task's run %s/%s", ack.Route.TaskID, ack.Route.RunID, task, first.Route.RunID)
	}
	other := h.forward("rename the config loader")
	releaseGate(t, gate)

	fin := h.finished(task)
	if got := fin.Payload.String("status"); got != ledger.StatusDone {
		t.Fatalf("run ended %s (%s)", got, fin.Payload.String("reason_code"))
	}
	h.finished(other.Route.TaskID)
	if b := readText(t, brief1); strings.Contains(b, "sorted by name") {
		t.Errorf("iteration 1 was briefed before the follow-up, yet was told %q", b)
	}
	b2 := readText(t, filepath.Join(root, "coder-"+task+"-2.txt"))
	if !strings.Contains(b2, "also print it sorted by name") || !strings.Contains(b2, "add a --json flag") {
		t.Errorf("iteration 2 was told %q; want the task and its follow-up", b2)
	}
	if b := readText(t, filepath.Join(root, "coder-"+other.Route.TaskID+"-1.txt")); strings.Contains(b, "sorted by name") {
		t.Errorf("another task was told the follow-up: %q", b)
	}
	runs := map[string]bool{}
	for _, e := range h.events() {
		if op(e) == opInstruction && e.TaskID == task {
			runs[e.RunID] = true
		}
		if op(e) == opInstruction && e.Payload.String("text") == "also print it sorted by name" {
			if raw, _ := e.Payload.Get("follow_up"); string(raw) != "true" || e.RunID != first.Route.RunID {
				t.Errorf("the follow-up was recorded as %v on run %s", e.Payload, e.RunID)
			}
		}
	}
	if len(runs) != 1 {
		t.Errorf("the task has runs %v; a follow-up of a task in progress starts none", runs)
	}
}

// A follow-up of a task that finished starts a new run of the same task,
// briefed with the task and the follow-up; one of an unknown task is
// refused.
func TestFollowUpOfAFinishedTaskRunsItAgain(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	h := startHarness(t, root, followUpConfig())
	first := h.forward("add a --json flag to status")
	task := first.Route.TaskID
	h.finished(task)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ack, err := h.client.FollowUp(ctx, task, "", "and document it")
	if err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	if ack.Route.TaskID != task || ack.Route.RunID == first.Route.RunID {
		t.Fatalf("follow-up routed to %s/%s; want a new run of %s", ack.Route.TaskID, ack.Route.RunID, task)
	}
	h.waitFor("the new run's end", func(e ledger.Event) bool { return e.RunID == ack.Route.RunID && op(e) == opRunFinished })
	// The new run's first coder overwrote coder-<task>-1.txt.
	b := readText(t, filepath.Join(root, "coder-"+task+"-1.txt"))
	if !strings.Contains(b, "add a --json flag") || !strings.Contains(b, "and document it") {
		t.Errorf("the new run was briefed %q", b)
	}

	_, err = h.client.FollowUp(ctx, "DK-NOSUCH", "", "x")
	if relay.CodeOf(err) != codeNoRun {
		t.Errorf("follow-up of an unknown task: %v, want %s", err, codeNoRun)
	}
}

// waitFile polls until path exists, failing after a deadline.
func (h *harness) waitFile(path string) {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	h.t.Fatalf("%s did not appear within 20s", path)
}

// releaseGate releases the gated coder: opening the fifo for writing waits for
// its reader.
func releaseGate(t *testing.T, fifo string) {
	t.Helper()
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
}

// Runs of different instructions never share an agent session: a
// second task's step, retried on a lane with a resume_command, starts
// fresh rather than resume the session the first task's step of the
// same id, in the same folder, reported.
func TestRunsOfDifferentTasksShareNoSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `read -r first; n=$(cat "$DAOKIT_TASK_ID.n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$DAOKIT_TASK_ID.n"
case "$first.$n" in
one.1) echo '@daokit {"type":"session","id":"h-one"}'; exit 0 ;;
two.1) echo 'no handle yet'; exit 3 ;;
two.*) exit 0 ;;
esac`
	cfg := shellConfig(script)
	cfg.Lanes[0].Dir = dir
	cfg.Lanes[0].ResumeCommand = []string{"sh", "-c", `echo "resumed {session} for $DAOKIT_TASK_ID" >> resumed.txt`}
	h := startHarness(t, t.TempDir(), cfg)
	one := h.forward("one")
	h.finished(one.Route.TaskID)
	two := h.forward("two")
	if end := h.finished(two.Route.TaskID); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the second task ended %v", end.Payload)
	}
	for _, e := range h.events() {
		if op(e) == opSessionResume && e.TaskID == two.Route.TaskID && e.Payload.String("decision") == "resume" {
			t.Errorf("the second task resumed session %s", e.Payload.String("session_id"))
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "resumed.txt")); err == nil {
		t.Errorf("a resume ran: %q", b)
	}
}

// A follow-up survives a restart of the controller even when the
// pipeline file shows another run: the instruction index keeps it, and
// the resumed task's next iteration is briefed with it.
func TestFollowUpSurvivesARestart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gate := filepath.Join(root, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHarness(t, root, followUpConfig())
	first := h.forward("GATED add a --json flag to status")
	task := first.Route.TaskID
	h.waitFile(filepath.Join(root, "coder-"+task+"-1.txt"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.client.FollowUp(ctx, task, "", "also print it sorted by name"); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	other := h.forward("rename the config loader")
	h.waitFor("the other task's instruction", func(e ledger.Event) bool { return e.TaskID == other.Route.TaskID })
	h.stop()
	if shown := ledger.LoadSnapshot(root).Pipeline.Value.TaskID; shown == task {
		t.Fatalf("the pipeline file shows %s: this test needs it to show another run", shown)
	}

	h = startHarness(t, root, followUpConfig())
	releaseGate(t, gate)
	if end := h.finished(task); end.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the resumed task ended %v", end.Payload)
	}
	if b := readText(t, filepath.Join(root, "coder-"+task+"-2.txt")); !strings.Contains(b, "also print it sorted by name") {
		t.Errorf("iteration 2 after the restart was told %q; want the follow-up", b)
	}
}

// The instruction index keeps a task's follow-ups: those attached to an
// open run, to a failed run they reopen, and all of them on a finished
// task's new run.
func TestIndexKeepsFollowUps(t *testing.T) {
	t.Parallel()
	f := eventFactory{now: time.Now}
	x := newInstrIndex(t.TempDir())
	attached := func(id, target, text string, reopens bool) ledger.Event {
		e := f.system(taskIDFor(target), "run-1", "S1", ledger.SeverityInfo, opInstruction,
			"message_id", id, "text", text, "attached_to", target, "follow_up", true)
		if reopens {
			e.Payload = e.Payload.With("reopens", "true")
		}
		return e
	}
	failed := f.system(taskIDFor("b"), "run-1", "S1", ledger.SeverityInfo, opRunFinished, "status", ledger.StatusFailed, "message_id", "b")
	done := f.system(taskIDFor("c"), "run-2", "S1", ledger.SeverityInfo, opInstruction, "message_id", "c2", "text", "do c",
		"route", routePayload(ledger.Route{TaskID: taskIDFor("c"), RunID: "run-2"}), "follow_up", true, "follows", "c",
		"follow_ups", []string{"first", "second"})
	for _, e := range []ledger.Event{instructionEvent(f, "a"), attached("a1", "a", "also this", false),
		instructionEvent(f, "b"), failed, attached("b1", "b", "try it this way", true), done} {
		x.fold(&e)
	}
	got := map[string][]string{}
	for _, en := range x.openEntries() {
		got[en.MessageID] = en.FollowUps
	}
	for id, want := range map[string][]string{"a": {"also this"}, "b": {"try it this way"}, "c2": {"first", "second"}} {
		if !slices.Equal(got[id], want) {
			t.Errorf("%s keeps follow-ups %q, want %q", id, got[id], want)
		}
	}
	if _, ok := got["a1"]; ok {
		t.Error("a follow-up became an instruction of its own")
	}
}
