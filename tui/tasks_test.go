package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// sys is a SYSTEM event of the controller: operation op with payload kv.
func sys(at time.Duration, task, run, step, op string, kv ...any) ledger.Event {
	return ledger.NewEvent(fixedNow.Add(at), task, run, step, ledger.EventSystem, ledger.SeverityInfo,
		ledger.ObjectOf(append([]any{"operation", op}, kv...)...))
}

// twoTasks is a ledger with two tasks: DK-A, whose change waits for
// review after one iteration that cost $0.42, and DK-B, started later
// and generating.
func twoTasks() []ledger.Event {
	return []ledger.Event{
		sys(-10*time.Minute, "DK-A", "RA", "I1-coder", "INSTRUCTION_RECEIVED", "message_id", "m1", "text", "add a --json flag",
			"received_at", ts(-10*time.Minute)),
		sys(-9*time.Minute, "DK-A", "RA", "I1-coder", "RUN_STATE", "from", "waiting", "to", "generating"),
		sys(-8*time.Minute, "DK-A", "RA", "I1-coder", "STEP_METRICS", "iteration", 1,
			"run_total", ledger.ObjectOf("cost_usd", 0.42)),
		sys(-8*time.Minute, "DK-A", "RA", "I1-coder", "WORKTREE_READY", "path", "/w/a", "base", "abc", "branch", "daokit/a", "repo", "/repo"),
		sys(-7*time.Minute, "DK-A", "RA", "I1-coder", "REVIEW_PENDING", "branch", "daokit/a"),
		sys(-2*time.Minute, "DK-B", "RB", "coder", "INSTRUCTION_RECEIVED", "message_id", "m2", "text", "rename the config loader",
			"received_at", ts(-2*time.Minute)),
		sys(-time.Minute, "DK-B", "RB", "coder", "RUN_STATE", "from", "waiting", "to", "generating"),
	}
}

// The task list shows every task with its state, iteration, age, cost
// and needs-you mark, filters and searches; a second task does not hide
// the first one's change waiting for review.
func TestTaskListShowsEveryTask(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.Relay = newFakeRelay()
	m := newTestModel(t, opts, 160, 48)
	feed(m, live.LedgerUpdate{Events: twoTasks()})
	// DK-A's call is not lost to DK-B, the current run.
	snap := fixtureSnapshot()
	snap.Pipeline.Value.TaskID, snap.Pipeline.Value.RunID = "DK-B", "RB"
	feed(m, live.LedgerUpdate{Snapshot: snap})
	if v := m.View(); !strings.Contains(v, "Tasks besides this one need you: 1 (DK-A is the newest); f4 lists them.") {
		t.Errorf("no banner for DK-A's review:\n%s", v)
	}
	press(t, m, "f4")
	view := m.View()
	checkFrame(t, view, 160, 48, "task list")
	rowA, rowB := lineWith(view, "DK-A"), lineWith(view, "DK-B")
	for _, want := range []string{"!", "review waits", " 1 ", "10m", "$0.42", "add a --json flag"} {
		if !strings.Contains(rowA, want) {
			t.Errorf("DK-A's row %q lacks %q", rowA, want)
		}
	}
	for _, want := range []string{"generating", "2m", "rename the config loader"} {
		if !strings.Contains(rowB, want) {
			t.Errorf("DK-B's row %q lacks %q", rowB, want)
		}
	}
	if strings.Contains(rowB, "!") || strings.Contains(rowB, "$") {
		t.Errorf("DK-B's row %q: it neither needs you nor cost anything", rowB)
	}
	if strings.Index(view, "DK-B") > strings.Index(view, "DK-A") {
		t.Error("the newest task is not first")
	}
	if !strings.Contains(view, "2 tasks · 1 need you") {
		t.Errorf("title figures missing:\n%s", view)
	}

	press(t, m, "!")
	if v := m.View(); lineWith(v, "DK-B") != "" || lineWith(v, "DK-A") == "" {
		t.Errorf("the needs-you filter shows:\n%s", v)
	}
	press(t, m, "!", "/")
	typeText(m, "config")
	if v := m.View(); lineWith(v, "DK-A") != "" || lineWith(v, "DK-B") == "" || !strings.Contains(v, "search: config") {
		t.Errorf("a search for config shows:\n%s", v)
	}
	// Esc drops the search (the list stays open), then closes the list.
	press(t, m, "esc")
	if v := m.View(); lineWith(v, "DK-A") == "" {
		t.Errorf("esc did not drop the search:\n%s", v)
	}
	press(t, m, "esc")
	if m.Tasks().Visible() {
		t.Error("esc did not close the list")
	}
}

// Choosing a task steers it: messages go to it as follow-ups, control
// requests name it, and the conversation, the events and the worker
// output show it; the new-task key steers none again.
func TestChosenTaskIsSteered(t *testing.T) {
	t.Parallel()
	r := newFakeRelay()
	opts := testOptions("en")
	opts.Relay = r
	m := newTestModel(t, opts, 160, 48)
	feed(m, live.LedgerUpdate{Events: twoTasks()})
	relay := func(u live.RelayUpdate) {
		_, cmd := m.Update(live.RelayMsg{Update: u})
		runQuick(m, cmd)
	}
	relay(live.RelayUpdate{Route: &live.Route{TaskID: "DK-A", RunID: "RA", ActiveStep: "coder"}})
	relay(live.RelayUpdate{Output: &live.OutputLine{TaskID: "DK-A", RunID: "RA", StepID: "coder", Line: "A's worker speaks"}})
	relay(live.RelayUpdate{Route: &live.Route{TaskID: "DK-B", RunID: "RB", ActiveStep: "coder"}})
	if v := m.View(); strings.Contains(v, "A's worker speaks") {
		t.Errorf("DK-B's step shows DK-A's output (same step id, another task):\n%s", v)
	}

	press(t, m, "f4", "down", "enter")
	if got := m.Steering(); got != "DK-A" {
		t.Fatalf("steering %q, want DK-A", got)
	}
	view := m.View()
	for _, want := range []string{"→ DK-A (follow-up) · ctrl+n new task", "A's worker speaks", "5 of 7 DK-A"} {
		if !strings.Contains(view, want) {
			t.Errorf("a window steering DK-A lacks %q:\n%s", want, view)
		}
	}
	typeText(m, "also sort it by name")
	press(t, m, "enter")
	typeText(m, "/accept")
	press(t, m, "enter")
	press(t, m, "ctrl+n")
	typeText(m, "a new thing")
	press(t, m, "enter")
	want := []string{"followup:DK-A:also sort it by name", "control:accept@DK-A", "forward:a new thing"}
	if got := sends(r.Calls()); !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	if v := m.View(); !strings.Contains(v, "follow-up of DK-A") || !strings.Contains(v, "next message starts a new task") {
		t.Errorf("the conversation does not say where the messages went:\n%s", v)
	}
}

// sends keeps the calls that send something (not observe).
func sends(calls []string) []string {
	var out []string
	for _, c := range calls {
		if c != "observe" {
			out = append(out, c)
		}
	}
	return out
}

// lineWith returns the first line of frame that holds s, or "", leaving
// out the banner line that counts the tasks that need the person and
// the route bar.
func lineWith(frame, s string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, s) && !strings.Contains(l, "besides this one") && !strings.Contains(l, "除当前任务外") && !strings.Contains(l, " · run: ") {
			return l
		}
	}
	return ""
}

// F5 shows the whole log of the steered task's step: it follows what
// the worker appends, searches it, and switches to stderr.
func TestStepLogView(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.Root = t.TempDir()
	opts.Relay = newFakeRelay()
	dir := filepath.Join(opts.Root, "artifacts", "DK-A", "RA", "I1-coder")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := range 300 {
		if i == 100 {
			log.WriteString("a needle in the log\n")
			continue
		}
		fmt.Fprintf(&log, "line %d\n", i)
	}
	stdout := filepath.Join(dir, "stdout.log")
	if err := os.WriteFile(stdout, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, opts, 120, 40)
	feed(m, live.LedgerUpdate{Events: twoTasks()})
	press(t, m, "f4", "down", "enter", "f5")
	view := m.View()
	checkFrame(t, view, 120, 40, "log view")
	for _, want := range []string{"Log · DK-A · I1-coder · stdout", "300 lines · following", "line 299"} {
		if !strings.Contains(view, want) {
			t.Errorf("log view lacks %q:\n%s", want, view)
		}
	}
	f, err := os.OpenFile(stdout, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("the worker goes on\npartial"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	feed(m, live.LedgerUpdate{Events: []ledger.Event{sys(0, "DK-A", "RA", "I1-coder", "WORKER_OUTPUT", "line", "x")}})
	if v := m.View(); !strings.Contains(v, "the worker goes on") || !strings.Contains(v, "partial") {
		t.Errorf("the view did not follow the log:\n%s", v)
	}
	press(t, m, "/")
	typeText(m, "needle")
	press(t, m, "enter")
	view = m.View()
	for _, want := range []string{"a needle in the log", "(1/1)", "paused"} {
		if !strings.Contains(view, want) {
			t.Errorf("after a search, the view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "line 299") {
		t.Errorf("the search did not move the view:\n%s", view)
	}
	press(t, m, "e")
	if v := m.View(); !strings.Contains(v, "stderr") || !strings.Contains(v, "Nothing printed yet") {
		t.Errorf("stderr view:\n%s", v)
	}
	press(t, m, "esc")
	if m.Logs().Visible() {
		t.Error("esc did not close the log view")
	}
}

// The task list and the log view fit the terminal at the smallest
// common size, in both languages.
func TestTaskViewsFitAt80x24(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "zh-CN"} {
		opts := testOptions(lang)
		opts.Relay = newFakeRelay()
		m := newTestModel(t, opts, 80, 24)
		feed(m, live.LedgerUpdate{Events: twoTasks()})
		press(t, m, "f4")
		checkFrame(t, m.View(), 80, 24, lang+" task list")
		if lineWith(m.View(), "DK-A") == "" {
			t.Errorf("%s: the list at 80×24 lacks DK-A:\n%s", lang, m.View())
		}
		press(t, m, "down", "enter", "f5")
		checkFrame(t, m.View(), 80, 24, lang+" log view")
		press(t, m, "esc", "f1")
		checkFrame(t, m.View(), 80, 24, lang+" help")
	}
}

// A failed task that runs again (a retry, or a follow-up that reopened
// it) no longer shows failed nor needs the person.
func TestTaskThatRunsAgainIsNoLongerFailed(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	feed(m, live.LedgerUpdate{Events: []ledger.Event{
		sys(-5*time.Minute, "DK-C", "RC", "S1", "INSTRUCTION_RECEIVED", "message_id", "m3", "text", "fix the flaky test"),
		sys(-4*time.Minute, "DK-C", "RC", "S1", "RUN_STATE", "from", "generating", "to", "failed", "reason_code", "WORKER_EXIT_NONZERO"),
		sys(-4*time.Minute, "DK-C", "RC", "S1", "RUN_FINISHED", "status", "FAILED", "reason_code", "WORKER_EXIT_NONZERO"),
	}})
	press(t, m, "f4")
	if row := lineWith(m.View(), "DK-C"); !strings.Contains(row, "!") || !strings.Contains(row, "failed") {
		t.Fatalf("the failed task's row %q", row)
	}
	feed(m, live.LedgerUpdate{Events: []ledger.Event{
		sys(-time.Minute, "DK-C", "RC", "S1", "INSTRUCTION_RECEIVED", "message_id", "m4", "text", "mind the timeout",
			"attached_to", "m3", "follow_up", true, "reopens", "true"),
		sys(-time.Minute, "DK-C", "RC", "S1", "RUN_STATE", "from", "failed", "to", "generating"),
	}})
	if row := lineWith(m.View(), "DK-C"); strings.Contains(row, "!") || !strings.Contains(row, "generating") || !strings.Contains(row, "fix the flaky test") {
		t.Errorf("the task running again shows %q", row)
	}
}

// Tasks whose instructions are older than the events the window read
// come from the controller's answer to observe; what the events say
// wins.
func TestTaskListLearnsOlderTasksFromTheController(t *testing.T) {
	t.Parallel()
	opts := testOptions("en")
	opts.Relay = newFakeRelay()
	m := newTestModel(t, opts, 160, 48)
	feed(m, live.LedgerUpdate{Events: twoTasks()})
	_, cmd := m.Update(live.RelayMsg{Update: live.RelayUpdate{Status: &live.Status{Runs: []live.RunState{
		{TaskID: "DK-OLD", RunID: "RO", StepID: "S1", State: "failed", Reason: "WORKER_EXIT_NONZERO"},
		{TaskID: "DK-B", RunID: "RB", StepID: "coder", State: "waiting"},
	}}}})
	runQuick(m, cmd)
	press(t, m, "f4")
	v := m.View()
	if row := lineWith(v, "DK-OLD"); !strings.Contains(row, "failed") {
		t.Errorf("the older task's row %q", row)
	}
	if row := lineWith(v, "DK-B"); !strings.Contains(row, "generating") {
		t.Errorf("DK-B's row %q: the status overrode its events", row)
	}
	if !strings.Contains(v, "3 tasks") {
		t.Errorf("title figures:\n%s", v)
	}
}

// The task list draws from the run projection: only the steered task
// (the selected entry) says which lane it waits for; a run dropped while
// it waited shows abandoned and does not call for its person, unlike a
// failure.
func TestTaskListProjectsWaitingAndAbandoned(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, testOptions("en"), 160, 48)
	waiting := func(task, run, msg string, at time.Duration) []ledger.Event {
		return []ledger.Event{
			sys(at, task, run, "S1", "INSTRUCTION_RECEIVED", "message_id", msg, "text", "task "+task),
			sys(at, task, run, "S1", "RUN_STATE", "from", "idle", "to", "waiting", "lane", "coder"),
		}
	}
	events := append(waiting("DK-W1", "R1", "m1", -5*time.Minute), waiting("DK-W2", "R2", "m2", -4*time.Minute)...)
	events = append(events, waiting("DK-AB", "R3", "m3", -3*time.Minute)...)
	events = append(events,
		sys(-2*time.Minute, "DK-AB", "R3", "S1", "RUN_STATE", "from", "waiting", "to", "cancelled", "reason_code", "RUN_ABANDONED", "lane", "coder"),
		sys(-2*time.Minute, "DK-AB", "R3", "S1", "RUN_FINISHED", "status", "FAILED", "reason_code", "RUN_ABANDONED"))
	feed(m, live.LedgerUpdate{Events: events})
	press(t, m, "f4")
	v := m.View()
	if row := lineWith(v, "DK-W1"); !strings.Contains(row, "waiting") || strings.Contains(row, "coder") {
		t.Errorf("a task not steered shows its lane: %q", row)
	}
	if row := lineWith(v, "DK-AB"); strings.Contains(row, "!") || !strings.Contains(row, "abandoned") {
		t.Errorf("the abandoned task's row %q", row)
	}
	// Steer DK-W1 (rows are newest first: DK-AB, DK-W2, DK-W1).
	press(t, m, "down", "down", "enter")
	if got := m.Steering(); got != "DK-W1" {
		t.Fatalf("steering %q, want DK-W1", got)
	}
	press(t, m, "f4")
	v = m.View()
	if row := lineWith(v, "DK-W1"); !strings.Contains(row, "waiting · coder") {
		t.Errorf("the steered waiting task does not name its lane: %q", row)
	}
	if row := lineWith(v, "DK-W2"); strings.Contains(row, "coder") {
		t.Errorf("another waiting task shows the steered one's detail: %q", row)
	}
}
