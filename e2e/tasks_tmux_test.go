package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
)

// tasksConfig is a daokit.toml whose lane (two runs at once) works in
// project, so that its steps get worktrees. Each worker first keeps its
// instruction in briefs-<task>.txt under the root; an instruction that
// says "slow" runs for a minute, any other for a second and then waits
// for review.
func tasksConfig(project string) string {
	return worktreeTimings + `
[[lanes]]
name = "worker"
kind = "sim"
dir = "` + project + `"
concurrency = 2
stop_grace = "200ms"
command = ["sh", "-c", "printf '%s\\n---\\n' \"$1\" >> \"$DAOKIT_ROOT/briefs-$DAOKIT_TASK_ID.txt\"; case \"$1\" in *slow*) exec {daokit} worker sim --duration 60s --lines 30 -- \"$1\";; esac; exec {daokit} worker sim --duration 1s --lines 8 -- \"$1\"", "sh", "{instruction}"]
`
}

// TestWindowSteersATaskWithAFollowUp drives two tasks in the window, one
// waiting for review and one running: the task list (F4) shows both, the
// first is chosen and steered with a follow-up, which reaches the brief
// of its next attempt (after a reject and a retry of that task), while
// the running task is left alone.
func TestWindowSteersATaskWithAFollowUp(t *testing.T) {
	t.Parallel()
	win, root := openTwoTasks(t)

	win.keys("F4")
	screen := win.waitFor(30*time.Second, "Tasks", "2 tasks · 1 need you", "review waits")
	cache, slow := taskOf(screen, "add a cache"), taskOf(screen, "slow: rename the loader")
	if cache == "" || slow == "" || cache == slow {
		t.Fatalf("the list does not show both tasks:\n%s", screen)
	}
	// Newest first: the slow task's row, then the cache's.
	win.keys("Down", "Enter")
	win.waitFor(10*time.Second, "→ "+cache+" (follow-up)")
	win.typeLine("also log cache misses")
	win.waitFor(30*time.Second, "follow-up of "+cache)
	win.typeLine("/reject too little")
	win.waitFor(30*time.Second, "failed")
	win.typeLine("/retry")
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(root, "briefs-"+cache+".txt"))
		if strings.Count(string(b), "---") >= 2 {
			if !strings.Contains(string(b), "also log cache misses") {
				t.Fatalf("the retried attempt was briefed without the follow-up:\n%s", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the steered task never ran again; briefs %q; screen:\n%s", b, win.capture())
		}
		time.Sleep(100 * time.Millisecond) // polling the file; the condition decides
	}
	if b, _ := os.ReadFile(filepath.Join(root, "briefs-"+slow+".txt")); strings.Contains(string(b), "cache misses") {
		t.Errorf("the other task was told the follow-up:\n%s", b)
	}
}

// openTwoTasks opens the window on a root of tasksConfig with two tasks:
// "add a cache", whose change waits for review, and "slow: rename the
// loader", which runs.
func openTwoTasks(t *testing.T) (win *screen, root string) {
	t.Helper()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root = newRoot(t, tasksConfig(project))
	t.Cleanup(func() { stopRootController(t, root) })
	win = openWindow(t, "--root", root)
	win.waitFor(30*time.Second, "Connected to the controller")
	win.typeLine("add a cache")
	win.waitFor(60*time.Second, "has a change waiting for your review")
	win.typeLine("slow: rename the loader")
	win.waitFor(30*time.Second, "generating")
	return win, root
}

// keys sends tmux key names (F4, Down, Enter) to the window.
func (s *screen) keys(names ...string) {
	s.t.Helper()
	for _, k := range names {
		if out, err := exec.Command("tmux", "-L", s.socket, "send-keys", "-t", "0", k).CombinedOutput(); err != nil {
			s.t.Fatalf("send-keys %s: %v %s", k, err, out)
		}
	}
}

// taskOf returns the task id on the task list's row that shows text.
func taskOf(screen, text string) string {
	for _, l := range strings.Split(screen, "\n") {
		if !strings.Contains(l, text) {
			continue
		}
		for _, f := range strings.Fields(l) {
			if strings.HasPrefix(f, "DK-") {
				return f
			}
		}
	}
	return ""
}

// `daokit send --follow-up --task-id` steers a task from a shell: a
// finished task runs again, briefed with the task and the follow-up;
// without --task-id the flag is refused.
func TestSendFollowUpRunsATaskAgain(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	cfg := strings.Replace(tasksConfig(project), `dir = "`+project+`"`, `dir = "`+project+`"`+"\nisolation = \"none\"", 1)
	root := newRoot(t, cfg)
	ctl := startController(t, root)
	defer ctl.stop()
	task := ackTask(t, run(t, "send", "--root", root, "--wait", "add a cache"))
	r := run(t, "send", "--root", root, "--wait", "--follow-up", "--task-id", task, "and document it")
	if r.code != 0 || ackTask(t, r) != task {
		t.Fatalf("send --follow-up: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(root, "briefs-"+task+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	briefs := strings.Split(string(b), "---\n")
	if last := briefs[len(briefs)-2]; !strings.Contains(last, "add a cache") || !strings.Contains(last, "and document it") {
		t.Errorf("the task's second run was briefed %q", last)
	}
	if r := run(t, "send", "--root", root, "--follow-up", "x"); r.code == 0 || !strings.Contains(r.stderr, "--task-id") {
		t.Errorf("send --follow-up without --task-id: code %d stderr %q", r.code, r.stderr)
	}
}
