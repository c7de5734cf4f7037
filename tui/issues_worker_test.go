package tui

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/team"
	"github.com/daokit/daokit/tui/live"
)

// workerRoot is issuesRoot with the backend Worker of #1 as its Lead
// leaves it: attempt 1 running (in the Lead's status file), its stdout
// log, and its git worktree of the role's repository on its branch with
// an uncommitted edit. It returns the root and the log.
func workerRoot(t *testing.T) (root, stdout string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root = issuesRoot(t)
	wf, err := team.Load(filepath.Join(root, "team"))
	if err != nil {
		t.Fatal(err)
	}
	repo := wf.RepoDir("backend")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "api.go"), []byte("package api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(repo, "add", "api.go")
	git(repo, "commit", "-qm", "first")
	tree := roster.WorktreePath(wf.Dir, "backend", 1)
	git(repo, "worktree", "add", "-q", "-b", roster.WorktreeBranch("backend", 1), tree, "main")
	if err := os.WriteFile(filepath.Join(tree, "api.go"), []byte("package api\n\nfunc Login() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	dir := roster.StatusDir(wf)
	logs := roster.AttemptDir(dir, "backend", 1, 1)
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout = filepath.Join(logs, "stdout.log")
	if err := os.WriteFile(stdout, []byte("working on #1: Login API\nwriting the handler\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := roster.ReadStatus(dir, "backend")
	if err != nil {
		t.Fatal(err)
	}
	st.Workers = []roster.WorkerStatus{{Issue: 1, Attempt: 1, PID: os.Getpid(), Health: "ACTIVE", SilentMS: 4000,
		Logs: logs, Worktree: tree, Started: time.Now()}}
	data, _ := json.Marshal(st)
	if err := os.WriteFile(roster.StatusPath(dir, "backend"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root, stdout
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// tick does what the root's clock tick does for the issues view and the
// log view (onTick: the tick broadcast, logs.Refresh), their reads going
// back through the root's Update; the root's other tick commands, such
// as the controller probe, are not run here (as in the roles tests).
func tick(m *Model) {
	_, cmd := m.issues.Update(live.TickMsg{Now: fixedNow})
	runQuick(m, tea.Batch(cmd, m.Logs().Refresh()))
}

// Opening an issue in F6 shows its Worker: its attempt and heartbeat,
// the tail of its output as it grows, and its worktree's change against
// its base; F5 there opens the Worker's whole log, which follows what
// the Worker appends, searches it, and moves to a new attempt by itself.
func TestIssueThreadShowsItsWorkerAndF5FollowsItsLog(t *testing.T) {
	root, stdout := workerRoot(t)
	opts := testOptions("en")
	opts.Root = root
	m := New(context.Background(), opts)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	openIssues(t, m)
	if got := m.issues.Target(); got != 1 {
		t.Fatalf("the cursor is on #%d, want #1", got)
	}
	press(t, m, "enter")
	frame := m.View()
	checkFrame(t, frame, 120, 40, "thread")
	for _, want := range []string{"#1 Login API", "Worker · attempt 1 · worker alive, silent 4s", "writing the handler",
		"Change · 1 files · +2 -0", "api.go", "+func Login() {}", "F5: its whole output"} {
		if !strings.Contains(frame, want) {
			t.Fatalf("the thread lacks %q:\n%s", want, frame)
		}
	}
	// The thread follows the Worker's output on the tick.
	appendTo(t, stdout, "handler written\n")
	tick(m)
	if frame := m.View(); !strings.Contains(frame, "handler written") {
		t.Fatalf("the thread did not follow the Worker's output:\n%s", frame)
	}

	press(t, m, "f5")
	if !m.Logs().Visible() {
		t.Fatal("F5 in the thread did not open the log view")
	}
	frame = m.View()
	checkFrame(t, frame, 120, 40, "worker log")
	for _, want := range []string{"Log · backend #1 · attempt 1 · stdout", "working on #1: Login API", "handler written", "3 lines · following"} {
		if !strings.Contains(frame, want) {
			t.Fatalf("the Worker's log lacks %q:\n%s", want, frame)
		}
	}
	appendTo(t, stdout, "running the tests\nall tests pass\n")
	tick(m)
	if frame := m.View(); !strings.Contains(frame, "all tests pass") || !strings.Contains(frame, "5 lines") {
		t.Fatalf("the log view did not follow the Worker's log:\n%s", frame)
	}
	press(t, m, "/")
	typeText(m, "handler")
	press(t, m, "enter")
	if frame := m.View(); !strings.Contains(frame, "search: handler (1/2)") || !strings.Contains(frame, "paused") {
		t.Fatalf("the search did not find the Worker's lines:\n%s", frame)
	}
	press(t, m, "n")
	if frame := m.View(); !strings.Contains(frame, "(2/2)") {
		t.Fatalf("n did not go to the next match:\n%s", frame)
	}

	// The Lead restarts the Worker: the view moves to attempt 2.
	wf, _ := team.Load(filepath.Join(root, "team"))
	next := roster.AttemptDir(roster.StatusDir(wf), "backend", 1, 2)
	if err := os.MkdirAll(next, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(next, "stdout.log"), []byte("second attempt starts\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tick(m)
	frame = m.View()
	if !strings.Contains(frame, "attempt 2") || !strings.Contains(frame, "second attempt starts") || strings.Contains(frame, "all tests pass") {
		t.Fatalf("the log view did not move to the new attempt:\n%s", frame)
	}
	// esc closes the log and leaves the thread as it was.
	press(t, m, "esc")
	if m.Logs().Visible() || !m.issues.Visible() || !m.issues.Reading() {
		t.Fatal("esc did not go back from the log to the thread")
	}
	if frame := m.View(); !strings.Contains(frame, "Worker · attempt 2") {
		t.Fatalf("the thread does not show the new attempt:\n%s", frame)
	}
}

// From the list, F5 opens the log of the Worker of the issue under the
// cursor; an issue no Worker took yet says so. Every line fits 80×24 in
// both languages, and the issues view's help lists F5.
func TestWorkerLogFromTheIssueListFitsInBothLanguages(t *testing.T) {
	root, _ := workerRoot(t)
	for _, tc := range []struct{ lang, title, none, head string }{
		{"en", "Log · backend #1 · attempt 1", "No Worker has started on this issue yet", "Worker · attempt 1"},
		{"zh-CN", "日志 · backend #1 · 第 1 次尝试", "还没有 Worker 处理这个 issue", "Worker · 第 1 次尝试"},
	} {
		opts := testOptions(tc.lang)
		opts.Root = root
		m := New(context.Background(), opts)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		openIssues(t, m)
		press(t, m, "f5")
		frame := m.View()
		checkFrame(t, frame, 80, 24, tc.lang+" worker log")
		if !strings.Contains(frame, tc.title) || !strings.Contains(frame, "writing the handler") {
			t.Fatalf("%s: F5 on #1 in the list:\n%s", tc.lang, frame)
		}
		press(t, m, "f5", "down", "down", "f5") // #2, qa's: no Worker yet
		frame = m.View()
		checkFrame(t, frame, 80, 24, tc.lang+" no worker")
		if !strings.Contains(frame, tc.none) {
			t.Fatalf("%s: F5 on #2:\n%s", tc.lang, frame)
		}
		press(t, m, "esc", "up", "up", "enter")
		frame = m.View()
		checkFrame(t, frame, 80, 24, tc.lang+" thread")
		press(t, m, "pgdown", "pgdown", "pgdown")
		if frame := m.View(); !strings.Contains(frame, tc.head) || !strings.Contains(frame, "+func Login() {}") {
			t.Fatalf("%s: the thread at 80×24 shows no Worker:\n%s", tc.lang, frame)
		}
		found := false
		for _, b := range m.issues.FullHelp()[0] {
			found = found || b.Help().Key == "f5"
		}
		if !found {
			t.Fatalf("%s: the issues view's help lacks F5", tc.lang)
		}
	}
}
