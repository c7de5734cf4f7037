package controller

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// crashImage holds the log's fdatasync of the first batch that writes a
// line containing every one of marks, and hands the test the moment: the
// controller's journal waits in that sync, so nothing recorded after the
// line reaches events.jsonl, while the worker goes on and its output
// reaches its logs. What the root holds then is what a SIGKILL of the
// controller at that point leaves (the kernel has every write), and
// copy makes that image a root of its own for a successor.
type crashImage struct {
	marks   []string
	held    chan struct{}
	release chan struct{}
	once    sync.Once
}

func newCrashImage(marks ...string) *crashImage {
	return &crashImage{marks: marks, held: make(chan struct{}), release: make(chan struct{})}
}

// start starts a harness on root whose log syncs through c. The held
// sync is released before the harness stops, so that a test that failed
// does not leave its controller waiting in it.
func (c *crashImage) start(t *testing.T, root string, cfg config.Config) *harness {
	t.Helper()
	h := startHarnessWith(t, Options{Root: root, Config: cfg, SyncData: c.syncData})
	t.Cleanup(c.free) // runs before the harness's own cleanup
	return h
}

// syncData is Options.SyncData.
func (c *crashImage) syncData(f *os.File) error {
	for _, line := range strings.Split(fileTail(f, 16<<10), "\n") {
		if c.matches(line) {
			c.once.Do(func() {
				close(c.held)
				<-c.release
			})
			break
		}
	}
	return f.Sync()
}

func (c *crashImage) matches(line string) bool {
	for _, m := range c.marks {
		if !strings.Contains(line, m) {
			return false
		}
	}
	return true
}

// wait returns once the sync is held.
func (c *crashImage) wait(t *testing.T) {
	t.Helper()
	select {
	case <-c.held:
	case <-time.After(20 * time.Second):
		t.Fatalf("no sync of a line with %v", c.marks)
	}
}

func (c *crashImage) free() {
	select {
	case <-c.release:
	default:
		close(c.release)
	}
}

// copyRoot copies root's folders and regular files (the ledger, the
// artifacts, the tests' own files) to a new folder: the disk a crashed
// controller left, for its successor.
func copyRoot(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path != root {
			return nil // gone between the listing and the visit (a temp file)
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !d.Type().IsRegular():
			return nil // the socket, a lock's leftovers
		}
		in, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a temp file renamed over its document meanwhile: the document is copied
		}
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// waitExited waits until the process that wrote its pid to file has
// exited (a worker of the held controller: its reaper still runs).
func waitExited(t *testing.T, file string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for ; ; time.Sleep(10 * time.Millisecond) { // polling a file and a pid; the condition decides
		data, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker that writes %s did not exit", file)
		}
	}
}

func lines(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// fromLogConfig is a loop of one iteration whose reviewer approves; the
// coder runs coder (a shell script) after counting its run in
// $DAOKIT_ROOT/coder-runs, keeps a copy of what it printed in coder-out
// and notes its pid in coder-pid.
func fromLogConfig(coder string) config.Config {
	cfg := loopConfig("1", 1)
	cfg.Lanes[0].Command = []string{"sh", "-c", `cat >/dev/null; echo run >> "$DAOKIT_ROOT/coder-runs"; { ` + coder +
		`; } | tee "$DAOKIT_ROOT/coder-out"; echo $$ > "$DAOKIT_ROOT/coder-pid"`}
	return cfg
}

// waitLogged waits until the coder's stdout.log ends with all it printed
// (coder-out): the held controller copies the pipe into the log as it
// reads it, and these tests are about a result that reached the log, not
// one still in the pipe when the controller died.
func waitLogged(t *testing.T, root, taskID, runID string) {
	t.Helper()
	dir, err := ledger.Layout{Root: root}.ArtifactDir(taskID, runID, "I1-coder")
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ; ; time.Sleep(10 * time.Millisecond) { // polling two files; the condition decides
		out, err1 := os.ReadFile(filepath.Join(root, "coder-out"))
		log, err2 := os.ReadFile(filepath.Join(dir, "stdout.log"))
		if err1 == nil && err2 == nil && len(out) > 0 && bytes.HasSuffix(log, out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the coder's log never held all it printed: %q", log)
		}
	}
}

// crashAfterCoder runs cfg's loop until the coder's worker has exited
// while its STEP_STARTED's sync is held (the run has not even begun to
// read the worker's output), copies the root as a SIGKILL there would
// leave it, lets the first controller go, and runs a successor on the
// copy to its end. It returns the copy and the successor's log.
func crashAfterCoder(t *testing.T, cfg config.Config) (string, []ledger.Event) {
	t.Helper()
	root := t.TempDir()
	crash := newCrashImage(`"step_id":"I1-coder"`, `"event_type":"STEP_STARTED"`)
	h := crash.start(t, root, cfg)
	ack := h.forward("add a --json flag")
	crash.wait(t)
	waitExited(t, filepath.Join(root, "coder-pid"))
	waitLogged(t, root, ack.Route.TaskID, ack.Route.RunID)
	image := copyRoot(t, root)
	crash.free()
	h.finished(ack.Route.TaskID)
	h.stop()

	next := startHarness(t, image, cfg)
	if fin := next.finished(ack.Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the successor's run ended %v", fin.Payload)
	}
	events := next.events()
	next.stop()
	return image, events
}

// readBack returns the STEP_READ_BACK of step.
func readBack(t *testing.T, events []ledger.Event, step string) ledger.Event {
	t.Helper()
	for _, e := range events {
		if op(e) == opStepReadBack && e.StepID == step {
			return e
		}
	}
	t.Fatalf("no %s for %s", opStepReadBack, step)
	return ledger.Event{}
}

// A controller that dies after its coder exited, before it recorded the
// coder's end: the successor finds the coder gone and its complete,
// successful result in its log, so it finishes the step from the log
// (STEP_COMPLETED from_log, what the coder said handed on) and never
// starts the coder again.
func TestFinishedWorkerIsFinishedFromItsLog(t *testing.T) {
	t.Parallel()
	image, events := crashAfterCoder(t, fromLogConfig(
		`echo '@daokit {"type":"tool","name":"edit","detail":"pkg/api/handler.go"}'; `+
			`echo '@daokit {"type":"result","summary":"added the flag"}'`))
	if n := lines(t, filepath.Join(image, "coder-runs")); n != 1 {
		t.Fatalf("the coder ran %d times, want once: a finished worker ran again", n)
	}
	if rb := readBack(t, events, "I1-coder"); rb.Payload.String("why") != readBackFinished {
		t.Fatalf("read back %v", rb.Payload)
	}
	starts, completed, accepted := 0, 0, 0
	for _, e := range events {
		switch {
		case e.StepID != "I1-coder":
		case e.EventType == ledger.EventAcceptancePassed:
			// Nobody saw the coder's exit code: the criterion recorded is
			// the one checked, its result line in its log.
			accepted++
			criteria, _ := e.Payload.Get("criteria")
			if e.Payload.String("criterion") != criterionResultInLog || strings.Contains(string(criteria), "exit code 0") ||
				!strings.Contains(string(criteria), "result in its log") {
				t.Errorf("ACCEPTANCE_PASSED %v, want the criterion %s", e.Payload, criterionResultInLog)
			}
		case e.EventType == ledger.EventStepStarted:
			starts++
		case e.EventType == ledger.EventStepCompleted:
			completed++
			if raw, _ := e.Payload.Get("from_log"); string(raw) != "true" || e.Payload.String("summary") != "added the flag" {
				t.Errorf("STEP_COMPLETED %v, want from_log with the coder's summary", e.Payload)
			}
			if _, ok := e.Payload.Get("exit_code"); ok {
				t.Errorf("STEP_COMPLETED claims an exit code nobody saw: %v", e.Payload)
			}
		}
	}
	if starts != 1 || completed != 1 || accepted != 1 {
		t.Fatalf("I1-coder started %d, completed %d and passed %d times, want once each", starts, completed, accepted)
	}
	// The successor took over the dead controller's leases as every
	// takeover does (heal.PlanTakeover: the successor's thread named, the
	// step fenced), and failed nothing it then read back.
	succession := count(events, func(e ledger.Event) bool {
		return e.EventType == ledger.EventLeaseTakeover && e.Payload.String("reason_code") == string(vocab.ReasonSuccession) &&
			strings.HasPrefix(e.Payload.String("successor_thread_id"), "controller-")
	})
	failed := count(events, func(e ledger.Event) bool { return e.StepID == "I1-coder" && e.EventType == ledger.EventStepFailed })
	if succession != 1 || failed != 0 {
		t.Errorf("%d planned successions and %d STEP_FAILED of I1-coder, want 1 and 0", succession, failed)
	}
	// The reviewer after it, seen to exit, says so.
	seen := count(events, func(e ledger.Event) bool {
		return e.StepID == "I1-reviewer" && e.EventType == ledger.EventAcceptancePassed && e.Payload.String("criterion") == criterionExitZero
	})
	if seen != 1 {
		t.Errorf("%d acceptances of I1-reviewer say it exited 0, want 1", seen)
	}
	// What the coder said reached the workflow's callbacks: its edit is
	// in the step's summary.
	summarized := count(events, func(e ledger.Event) bool {
		return op(e) == opStepSummary && e.StepID == "I1-coder" && factsName(e, "handler.go")
	})
	if summarized == 0 {
		t.Errorf("no summary of I1-coder names the edit read back from its log")
	}
}

// A worker whose log has no complete result (its last line torn, or no
// result at all) did not provably finish: the successor runs it again.
func TestUnfinishedWorkerRunsAgain(t *testing.T) {
	t.Parallel()
	for name, coder := range map[string]string{
		"torn result": `if [ "$(wc -l < "$DAOKIT_ROOT/coder-runs")" = 1 ]; then printf '@daokit {"type":"result","summary":"added'; ` +
			`else echo '@daokit {"type":"result","summary":"added the flag"}'; fi`,
		"no result": `echo '@daokit {"type":"progress","message":"editing"}'`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			image, events := crashAfterCoder(t, fromLogConfig(coder))
			if n := lines(t, filepath.Join(image, "coder-runs")); n != 2 {
				t.Fatalf("the coder ran %d times, want twice", n)
			}
			rb := readBack(t, events, "I1-coder")
			if raw, _ := rb.Payload.Get("finished"); string(raw) != "false" || rb.Payload.String("why") != readBackNoResult {
				t.Fatalf("read back %v", rb.Payload)
			}
		})
	}
}

// A command judge whose decision was written when the controller died
// (its fdatasync held) is not asked again: the successor reads the
// decision from the log and ends the run.
func TestRecordedJudgeIsNotRunAgain(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := loopConfig("1", 2)
	cfg.Workflow.Judge = config.JudgeCommand
	cfg.Workflow.JudgeCommand = []string{"sh", "-c", `echo run >> "$DAOKIT_ROOT/judge-runs"; [ "$DAOKIT_ITERATION" -ge 1 ]`}
	crash := newCrashImage(`"step_id":"I1-judge"`, `"operation":"`+opStepRecorded+`"`)
	h := crash.start(t, root, cfg)
	ack := h.forward("add a --json flag")
	crash.wait(t)
	image := copyRoot(t, root)
	crash.free()
	h.finished(ack.Route.TaskID)
	h.stop()

	next := startHarness(t, image, cfg)
	if fin := next.finished(ack.Route.TaskID); fin.Payload.String("status") != ledger.StatusDone {
		t.Fatalf("the successor's run ended %v", fin.Payload)
	}
	next.stop()
	if n := lines(t, filepath.Join(image, "judge-runs")); n != 1 {
		t.Fatalf("the judge ran %d times, want once", n)
	}
}

// factsName reports whether a STEP_SUMMARY's facts mention s.
func factsName(e ledger.Event, s string) bool {
	raw, _ := e.Payload.Get("facts")
	return strings.Contains(string(raw), s)
}

// A left worker that still runs is killed and waited for before its
// step goes on: never two workers on one step. A process that is not a
// worker of this root and task is neither waited for nor touched.
func TestAwaitGoneKillsAndWaitsForALiveLeftWorker(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	c := &Controller{opts: Options{Root: root}}
	// Each child is reaped as soon as it dies, as init reaps a dead
	// controller's orphans; the test waits until it runs sleep with its
	// environment: right after a start, the kernel may still be setting
	// up the exec'd program, whose environ then reads empty.
	start := func(env ...string) (*exec.Cmd, <-chan error) {
		cmd := exec.Command("sleep", "30")
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		reaped, ended := make(chan error, 1), make(chan struct{})
		go func() { defer close(ended); reaped <- cmd.Wait() }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-ended })
		waitEnviron(t, cmd.Process.Pid, env[0])
		return cmd, reaped
	}
	stranger, _ := start("DAOKIT_ROOT=/elsewhere", "DAOKIT_TASK_ID=T1")
	if !c.awaitGone(stranger.Process.Pid, "T1", time.Second) {
		t.Fatal("a process of another root was waited for")
	}
	if err := stranger.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("a process of another root was touched: %v", err)
	}
	left, reaped := start("DAOKIT_ROOT="+root, "DAOKIT_TASK_ID=T1")
	if !c.awaitGone(left.Process.Pid, "T1", 10*time.Second) {
		t.Fatal("the left worker outlived awaitGone")
	}
	select {
	case err := <-reaped:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the left worker ended %v, want killed by SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("awaitGone returned while the left worker lived")
	}
}

// waitEnviron waits until process pid's environment holds kv (within
// 10 s).
func waitEnviron(t *testing.T, pid int, kv string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if slices.Contains(strings.Split(string(env), "\x00"), kv) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never showed %s in its environment", pid, kv)
		}
		time.Sleep(time.Millisecond) // polling a condition with a deadline
	}
}
