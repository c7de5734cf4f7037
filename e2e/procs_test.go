package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// trackings are the two ways the controller tracks a step's process
// tree: a cgroup where cgroup v2 is writable (else the run is the same
// as the next), and the subreaper with the marker sweep.
var trackings = []struct{ name, env string }{{"cgroup", ""}, {"subreaper", "DAOKIT_CGROUP=off"}}

// controllerEnv is the environment of a controller tracking as told.
func controllerEnv(env string) []string {
	if env == "" {
		return nil
	}
	return append(os.Environ(), "DAOKIT_LANG=en", env)
}

// pidIn waits for a script to write a pid into file.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("%s holds %q", file, b)
			}
			t.Cleanup(func() {
				if pidAlive(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s within 30s", file)
		}
		time.Sleep(20 * time.Millisecond) // polling a file; the condition decides
	}
}

// pidAlive reports whether pid runs (a zombie has ended).
func pidAlive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || !bytes.HasPrefix(stat[i+1:], []byte(" Z"))
}

// waitPidsGone fails the test unless every pid is gone within 20 s.
func waitPidsGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range pids {
		for pidAlive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: pid %d still runs", what, pid)
			}
			time.Sleep(20 * time.Millisecond) // polling /proc; the condition decides
		}
	}
}

// treeLane is a daokit.toml whose "worker" lane runs a shell script: it
// starts a grandchild in a session of its own (as Claude Code runs each
// Bash tool), writes its pids into dir and waits, ignoring SIGTERM.
func treeLane(dir string) string {
	script := `trap '' TERM; setsid sh -c 'trap "" TERM; echo $$ > "$0/grandchild"; exec sleep 600' "$0" & ` +
		`echo $$ > "$0/worker"; sleep 600 & wait; wait`
	return drillTimings + `
[[lanes]]
name = "worker"
kind = "command"
command = ["sh", "-c", ` + strconv.Quote(script) + `, ` + strconv.Quote(dir) + `, "{instruction}"]
stop_grace = "300ms"
timeout = "10m"
`
}

// TestCancelKillsTheWorkersWholeTree: /cancel of a step whose worker
// ignores SIGTERM and started a grandchild in a session of its own
// leaves no process of that tree alive.
func TestCancelKillsTheWorkersWholeTree(t *testing.T) {
	t.Parallel()
	for _, tr := range trackings {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			root := newRoot(t, treeLane(dir))
			startControllerEnv(t, root, controllerEnv(tr.env))
			if r := run(t, "send", "--root", root, "work"); r.code != 0 {
				t.Fatalf("send: %+v", r)
			}
			worker, grandchild := pidIn(t, filepath.Join(dir, "worker")), pidIn(t, filepath.Join(dir, "grandchild"))
			if r := run(t, "send", "--root", root, "--cancel"); r.code != 0 {
				t.Fatalf("send --cancel: %+v", r)
			}
			waitPidsGone(t, "after /cancel", worker, grandchild)
		})
	}
}

// TestSuccessorKillsAKilledControllersTree: the controller is SIGKILLed
// mid-step; its worker had started a grandchild in a session of its own
// (re-parented to PID 1 once the worker dies). The successor's takeover
// leaves no process of that tree alive.
func TestSuccessorKillsAKilledControllersTree(t *testing.T) {
	t.Parallel()
	for _, tr := range trackings {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			root := newRoot(t, treeLane(dir))
			ctl := startControllerEnv(t, root, controllerEnv(tr.env))
			if r := run(t, "send", "--root", root, "work"); r.code != 0 {
				t.Fatalf("send: %+v", r)
			}
			worker, grandchild := pidIn(t, filepath.Join(dir, "worker")), pidIn(t, filepath.Join(dir, "grandchild"))
			ctl.kill()
			if !pidAlive(grandchild) || !pidAlive(worker) {
				t.Fatal("the tree died with the controller: nothing left to test")
			}
			// The worker's pid file is written again by the resumed step.
			_ = os.Remove(filepath.Join(dir, "worker"))
			_ = os.Remove(filepath.Join(dir, "grandchild"))
			successor := startControllerEnv(t, root, controllerEnv(tr.env))
			waitPidsGone(t, "after the successor's takeover", worker, grandchild)
			// The resumed step's own tree runs, and is the successor's:
			// it ends with it.
			worker, grandchild = pidIn(t, filepath.Join(dir, "worker")), pidIn(t, filepath.Join(dir, "grandchild"))
			successor.stop()
			waitPidsGone(t, "after the successor's SIGTERM", worker, grandchild)
		})
	}
}

// TestSIGTERMEndsTheControllerWhateverItsChildrenDo: a worker that
// ignores SIGTERM with a grandchild in a session of its own holding its
// output does not keep the controller from exiting on SIGTERM, and
// nothing of the tree survives it.
func TestSIGTERMEndsTheControllerWhateverItsChildrenDo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := newRoot(t, treeLane(dir))
	ctl := startController(t, root)
	if r := run(t, "send", "--root", root, "work"); r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	worker, grandchild := pidIn(t, filepath.Join(dir, "worker")), pidIn(t, filepath.Join(dir, "grandchild"))
	ctl.stop() // fails the test unless the controller exits within 20 s
	waitPidsGone(t, "after the controller's SIGTERM", worker, grandchild)
}

// judgeLoop is a loop of quick simulated agents working in project,
// judged by the command judge.
func judgeLoop(project, judge, timeout string, maxIterations int) string {
	return drillTimings + `
[[lanes]]
name = "coder"
kind = "sim"
dir = "` + project + `"
command = ["{daokit}", "worker", "sim", "--duration", "0", "--lines", "8", "--", "{instruction}"]
stop_grace = "200ms"

[[lanes]]
name = "reviewer"
kind = "sim"
dir = "` + project + `"
command = ["{daokit}", "worker", "sim", "--role", "reviewer", "--never-approve", "--duration", "0", "--", "{instruction}"]
stop_grace = "200ms"

[workflow]
kind = "loop"
max_iterations = ` + strconv.Itoa(maxIterations) + `
coder = "coder"
reviewer = "reviewer"
judge = "command"
judge_timeout = "` + timeout + `"
judge_command = ["sh", "-c", ` + strconv.Quote(judge) + `]
`
}

// iterationsOf returns the ITERATION_FINISHED events of task.
func iterationsOf(t *testing.T, root, taskID string) []ledger.Event {
	var out []ledger.Event
	for _, e := range events(t, root) {
		if e.TaskID == taskID && op(e) == "ITERATION_FINISHED" {
			out = append(out, e)
		}
	}
	return out
}

// TestCommandJudgeSeesTheWorktreesChange: the command judge runs in the
// run's worktree, where the coder's change is, with the step's
// environment; it passes in iteration 1 although the reviewer never
// approves, and the change waits for the person's review.
func TestCommandJudgeSeesTheWorktreesChange(t *testing.T) {
	t.Parallel()
	project := gittest.NewRepo(t, map[string]string{"README.md": "# project\n"})
	out := t.TempDir()
	// The sim coder edits (and may commit) in its worktree; the
	// project's own checkout stays as it was.
	judge := `env | grep ^DAOKIT_ > "` + out + `/env"; pwd > "` + out + `/pwd"; git status --porcelain > "` + out + `/log" 2>&1; git log -3 --format=%s >> "` + out + `/log" 2>&1; ` +
		`[ -n "$(git status --porcelain)" ] || [ "$(git rev-list --count HEAD)" -gt 1 ]`
	root := newRoot(t, judgeLoop(project, judge, "1m", 2))
	startController(t, root)
	r := run(t, "send", "--root", root, "add a cache")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	waitEvent(t, root, "REVIEW_PENDING", 60*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && (op(e) == "REVIEW_PENDING" || op(e) == "RUN_FINISHED")
	})
	its := iterationsOf(t, root, taskID)
	if len(its) != 1 || its[0].Payload.String("reason_code") != "JUDGE_COMMAND_PASSED" {
		for _, it := range its {
			t.Logf("iteration: %v", it.Payload)
		}
		log, _ := os.ReadFile(filepath.Join(out, "log"))
		pwd, _ := os.ReadFile(filepath.Join(out, "pwd"))
		t.Fatalf("%d iterations: want the judge to pass iteration 1; in %s git log said %s", len(its), pwd, log)
	}
	ready, _ := findEvent(t, root, func(e ledger.Event) bool { return e.TaskID == taskID && op(e) == "WORKTREE_READY" })
	tree := ready.Payload.String("path")
	pwd, _ := os.ReadFile(filepath.Join(out, "pwd"))
	if tree == "" || strings.TrimSpace(string(pwd)) != tree {
		t.Errorf("the judge ran in %q, want the worktree %q", pwd, tree)
	}
	env, _ := os.ReadFile(filepath.Join(out, "env"))
	for _, want := range []string{"DAOKIT_WORKTREE=" + tree, "DAOKIT_TASK_ID=" + taskID, "DAOKIT_RUN_ID=" + ready.RunID,
		"DAOKIT_STEP_ID=I1-judge", "DAOKIT_ITERATION=1", "DAOKIT_ROOT=" + root} {
		if !strings.Contains(string(env), want+"\n") {
			t.Errorf("the judge's environment lacks %s:\n%s", want, env)
		}
	}
}

// TestJudgeHoldingItsOutputTimesOutAndTheLoopGoesOn: a judge that
// starts a server in a session of its own holding its stdout, and
// ignores SIGTERM, ends at its timeout with its whole tree, and the loop
// goes on to its next iteration.
func TestJudgeHoldingItsOutputTimesOutAndTheLoopGoesOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	judge := `trap '' TERM; setsid sh -c 'echo $$ >> "` + dir + `/servers"; exec sleep 600' & echo serving; sleep 600`
	root := newRoot(t, judgeLoop(dir, judge, "500ms", 2))
	startController(t, root)
	r := run(t, "send", "--root", root, "add a cache")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	end := waitEvent(t, root, "RUN_FINISHED", 60*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	if code := end.Payload.String("reason_code"); code != "MAX_ITERATIONS_REACHED" {
		for _, e := range events(t, root) {
			if e.TaskID == taskID {
				t.Logf("event: %s %s %s %s", e.EventType, e.StepID, op(e), e.Payload)
			}
		}
		t.Errorf("run ended %s, want MAX_ITERATIONS_REACHED after two timed-out judges", code)
	}
	its := iterationsOf(t, root, taskID)
	if len(its) != 2 {
		t.Fatalf("%d iterations finished, want 2", len(its))
	}
	for _, it := range its {
		if it.Payload.String("reason_code") != "JUDGE_COMMAND_TIMED_OUT" || !strings.Contains(it.Payload.String("reason"), "serving") {
			t.Errorf("iteration %v: want a failed judge quoting its output", it.Payload)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "servers"))
	var servers []int
	for f := range strings.FieldsSeq(string(b)) {
		pid, _ := strconv.Atoi(f)
		servers = append(servers, pid)
	}
	if len(servers) != 2 {
		t.Fatalf("servers started: %q, want 2", b)
	}
	waitPidsGone(t, "the judges' servers", servers...)
}
