package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// drillTimings is the head of the drills' daokit.toml: liveness
// thresholds short enough for drills (warn after 1 s of silence, stale
// after 2 s, checks every 200 ms) and quick restarts; the lanes follow.
const drillTimings = `
[controller]
idle_exit = "0s"

[heartbeat]
check_interval = "200ms"
warning_after = "1s"
stale_after = "2s"

[lease]
ttl = "1s"

[restart]
max_restarts = 20
window = "10m"
backoff_base = "50ms"
backoff_cap = "200ms"
`

// fastConfig is drillTimings with one simulated worker lane.
const fastConfig = drillTimings + `
[[lanes]]
name = "worker"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--duration", "%DURATION%", "--lines", "6", "--", "{instruction}"]
stop_grace = "200ms"
`

// newRoot makes an initialised ledger root with a daokit.toml.
func newRoot(t testing.TB, config string) string {
	t.Helper()
	return newRootIn(t, t.TempDir(), config)
}

// newRootIn is newRoot in the folder root, which exists and is empty.
func newRootIn(t testing.TB, root, config string) string {
	t.Helper()
	run(t, "init", "--root", root)
	if config != "" {
		if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func simConfig(duration string) string { return strings.ReplaceAll(fastConfig, "%DURATION%", duration) }

// result is what one daokit command printed.
type result struct {
	stdout, stderr string
	code           int
}

// run runs daokit to its end with English messages.
func run(t testing.TB, args ...string) result {
	t.Helper()
	cmd := exec.Command(daokit, args...)
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run daokit %v: %v", args, err)
	}
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// controllerProc is a `daokit controller` child of the test.
type controllerProc struct {
	t    testing.TB
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startController starts a controller and waits for its ready line.
func startController(t testing.TB, root string, args ...string) *controllerProc {
	t.Helper()
	return startControllerEnv(t, root, nil, args...)
}

// startControllerEnv is startController with env (nil: the test's own
// environment with English messages).
func startControllerEnv(t testing.TB, root string, env []string, args ...string) *controllerProc {
	t.Helper()
	p, ready := spawnControllerEnv(t, root, env, args...)
	select {
	case line, ok := <-ready:
		if !ok {
			t.Fatalf("controller exited before it was ready: %v", p.err)
		}
		_ = line
	case <-time.After(20 * time.Second):
		p.kill()
		t.Fatal("controller not ready within 20s")
	}
	return p
}

// spawnController starts a controller; the channel yields its ready line
// or closes if it exits first.
func spawnController(t testing.TB, root string, args ...string) (*controllerProc, <-chan string) {
	t.Helper()
	return spawnControllerEnv(t, root, nil, args...)
}

// spawnControllerEnv is spawnController with env (nil: the test's own
// environment with English messages).
func spawnControllerEnv(t testing.TB, root string, env []string, args ...string) (*controllerProc, <-chan string) {
	t.Helper()
	cmd := exec.Command(daokit, append([]string{"controller", "--root", root}, args...)...)
	cmd.Env = env
	if env == nil {
		cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	}
	return spawnControllerCmd(t, cmd)
}

// spawnControllerCmd is spawnController for a prepared command (one
// that runs the controller in a network namespace, say).
func spawnControllerCmd(t testing.TB, cmd *exec.Cmd) (*controllerProc, <-chan string) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &controllerProc{t: t, cmd: cmd, done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if !sent && strings.Contains(sc.Text(), "controller ready") {
				ready <- sc.Text()
				sent = true
			}
		}
		io.Copy(io.Discard, stdout)
		p.err = cmd.Wait()
		if p.err != nil {
			p.err = errors.Join(p.err, errors.New(stderr.String()))
		}
		if !sent {
			close(ready)
		}
		close(p.done)
	}()
	t.Cleanup(p.kill)
	return p, ready
}

func (p *controllerProc) pid() int { return p.cmd.Process.Pid }

// stop asks the controller to stop and waits for it.
func (p *controllerProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.t.Errorf("controller %d did not stop on SIGTERM", p.pid())
		p.kill()
	}
}

// kill ends the controller with SIGKILL (a crash) and reaps it.
func (p *controllerProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Kill()
	<-p.done
}

// events reads the whole event log of root.
func events(t testing.TB, root string) []ledger.Event {
	t.Helper()
	tail, err := ledger.TailEvents(ledger.Layout{Root: root}.Events(), 1<<22)
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	return tail.Events
}

func op(e ledger.Event) string { return e.Payload.String("operation") }

// findEvent returns the first event of root's log that matches.
func findEvent(t testing.TB, root string, match func(ledger.Event) bool) (ledger.Event, bool) {
	t.Helper()
	for _, e := range events(t, root) {
		if match(e) {
			return e, true
		}
	}
	return ledger.Event{}, false
}

// waitEvent polls the log until match holds for an event, with a deadline.
func waitEvent(t testing.TB, root, what string, within time.Duration, match func(ledger.Event) bool) ledger.Event {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if e, ok := findEvent(t, root, match); ok {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, within)
		}
		time.Sleep(50 * time.Millisecond) // polling the log; the condition decides
	}
}

// payloadInt reads an integer member of an event's payload.
func payloadInt(e ledger.Event, key string) int {
	raw, _ := e.Payload.Get(key)
	n, _ := strconv.Atoi(string(raw))
	return n
}

// groupAlive reports whether any process of group pgid still exists.
func groupAlive(pgid int) bool {
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// waitGone waits until the process group is gone.
func waitGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// workersOf lists live processes whose environment names root and task.
func workersOf(root, taskID string) []int {
	return liveProcs("environ", func(env []byte) bool {
		return bytes.Contains(env, []byte("DAOKIT_ROOT="+root+"\x00")) && bytes.Contains(env, []byte("DAOKIT_TASK_ID="+taskID+"\x00"))
	})
}

// liveProcs lists the processes, zombies left out, whose /proc/<pid>/file
// matches.
func liveProcs(file string, match func(data []byte) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/" + file)
		if err != nil || !match(data) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !bytes.Contains(stat, []byte(") Z ")) {
			pids = append(pids, pid)
		}
	}
	return pids
}
