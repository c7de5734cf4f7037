package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
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

// TestWindowDrivesTwoTasks is issue 27's end-to-end test, whole: the
// real binary in tmux against a real controller and simulated workers
// drives two tasks, one waiting for review and one running. The task
// list (F4) shows both; the first is chosen and steered with a
// follow-up, which reaches the brief of its next attempt (after a reject
// and a retry of that task) while the running task is left alone. Then
// the new-task key, a third instruction whose worker hangs until its run
// is BLOCKED, and the /cancel the banner suggests ends that run FAILED,
// cancelled, and takes the banner line down. Last, with both tasks still
// there, every view fits the pane at 80×24 and 200×60 in English and,
// after F2, in Chinese.
func TestWindowDrivesTwoTasks(t *testing.T) {
	t.Parallel()
	win, root := openTwoTasksWith(t, manyTasksConfig)
	steerWithAFollowUp(t, win, root)
	cancelFromTheBanner(t, win, root)
	everyViewFits(win)
}

// manyTasksConfig is tasksConfig with room for a third run, whose
// instruction says "stuck-forever" (a word no brief holds by chance, as
// "change" holds "hang"): its worker prints a line and hangs, is
// restarted once, hangs again, and the run ends BLOCKED. The slow task
// runs for five minutes, printing twice a second: it runs to the test's
// end, and never falls silent long enough to look stale.
func manyTasksConfig(project string) string {
	cfg := replaced(tasksConfig(project), "concurrency = 2", "concurrency = 3")
	cfg = replaced(cfg, "--duration 60s --lines 30", "--duration 300s --lines 600")
	cfg = replaced(cfg, `case \"$1\" in `, `case \"$1\" in *stuck-forever*) exec {daokit} worker sim --hang-after 1 -- \"$1\";; `)
	cfg = replaced(cfg, "warning_after = \"5s\"\nstale_after = \"10s\"", "warning_after = \"2s\"\nstale_after = \"4s\"")
	return cfg + `
[restart]
max_restarts = 1
backoff_base = "50ms"
backoff_cap = "200ms"
`
}

// replaced is s with old replaced by new once; a config that no longer
// holds old is a test to fix, not one to run as something else.
func replaced(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("the config holds no " + strconv.Quote(old))
	}
	return strings.Replace(s, old, new, 1)
}

// steerWithAFollowUp chooses the task waiting for review in the task
// list and steers it with a follow-up, which must reach the brief of
// the task's next attempt and not the other task's.
func steerWithAFollowUp(t *testing.T, win *screen, root string) {
	t.Helper()
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
	// The retried attempt waits for review again: one task in review,
	// one running.
	reviews := func() int {
		n := 0
		for _, e := range events(t, root) {
			if e.TaskID == cache && op(e) == string(vocab.OpReviewPending) {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(60 * time.Second); reviews() < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("the retried attempt never waited for review; screen:\n%s", win.capture())
		}
		time.Sleep(100 * time.Millisecond) // polling the ledger; the condition decides
	}
}

// cancelFromTheBanner starts a new task with the new-task key, waits
// until its run is BLOCKED and the banner suggests /cancel, types it,
// and checks the run ended FAILED, cancelled, and the banner line went.
func cancelFromTheBanner(t *testing.T, win *screen, root string) {
	t.Helper()
	win.keys("C-n")
	win.waitFor(10*time.Second, "The next message starts a new task.")
	win.typeLine("stuck-forever until blocked")
	received := waitEvent(t, root, "the stuck instruction", 30*time.Second, func(e ledger.Event) bool {
		return op(e) == "INSTRUCTION_RECEIVED" && e.Payload.String("text") == "stuck-forever until blocked"
	})
	task := received.TaskID
	win.waitFor(90*time.Second, task+" is blocked", "/cancel")
	win.typeLine("/cancel")
	end := waitEvent(t, root, "the cancelled run's end", 30*time.Second, func(e ledger.Event) bool {
		return e.TaskID == task && op(e) == "RUN_FINISHED" && e.Payload.String("reason_code") == string(vocab.ReasonCancelled)
	})
	if got := end.Payload.String("status"); got != ledger.StatusFailed {
		t.Errorf("/cancel ended the blocked run %s, want FAILED", got)
	}
	screen := win.until(20*time.Second, "the blocked banner gone after /cancel", func(screen string) bool {
		return !strings.Contains(screen, task+" is blocked")
	})
	if strings.Contains(screen, "not delivered") {
		t.Errorf("/cancel was refused:\n%s", screen)
	}
}

// openTwoTasksWith opens the window on a root of config(project) with
// two tasks: "add a cache", whose change waits for review, and "slow:
// rename the loader", which runs.
func openTwoTasksWith(t *testing.T, config func(project string) string) (win *screen, root string) {
	t.Helper()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	root = newRoot(t, config(project))
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
