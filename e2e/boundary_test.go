package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// commandDeadline is far longer than any of these commands needs; a
// command still running then is hanging (on a FIFO, say).
const commandDeadline = 20 * time.Second

// runBounded runs daokit and fails the test if it does not return.
func runBounded(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, daokit, args...)
	cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("daokit %v hangs (killed after %v)", args, commandDeadline)
	}
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{stdout: out.String(), stderr: errOut.String(), code: code}
}

// TestPlantedLedgerFilesStayInside plants a link to a victim file, a FIFO
// or a folder in place of each file the controller and the readers
// touch, then runs the controller and every reader: each returns, the
// files that cannot be used are named in the refusal, and the victim
// outside the root is unchanged byte for byte.
func TestPlantedLedgerFilesStayInside(t *testing.T) {
	t.Parallel()
	victimBytes := []byte("victim line\n{\"torn\":")
	files := []string{"events.jsonl", "daokit.lock", "controller.log", "pipeline_state.json", "heartbeat_status.json", "process_leases.json"}
	kinds := []string{"symlink", "fifo", "folder"}
	for _, name := range files {
		for _, kind := range kinds {
			t.Run(name+"/"+kind, func(t *testing.T) {
				root := newRoot(t, "[controller]\nidle_exit = \"200ms\"\n")
				victim := filepath.Join(t.TempDir(), "victim")
				if err := os.WriteFile(victim, victimBytes, 0o644); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(root, "state", name)
				_ = os.Remove(path)
				switch kind {
				case "symlink":
					err := os.Symlink(victim, path)
					if err != nil {
						t.Fatal(err)
					}
				case "fifo":
					if err := syscall.Mkfifo(path, 0o644); err != nil {
						t.Fatal(err)
					}
				case "folder":
					if err := os.Mkdir(path, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				for _, args := range [][]string{
					{"replay", "--root", root},
					{"status", "--root", root},
					{"check", "--root", root},
					{"controller", "--root", root, "--idle-exit", "200ms"},
				} {
					r := runBounded(t, args...)
					if args[0] == "controller" && (name == "events.jsonl" || name == "daokit.lock" || name == "controller.log") {
						if r.code == 0 || !strings.Contains(r.stderr, name) {
							t.Errorf("controller with a planted %s: code %d, stderr %q; want a refusal naming it", name, r.code, r.stderr)
						}
					}
					if args[0] == "replay" && name == "events.jsonl" && !strings.Contains(r.stderr, name) {
						t.Errorf("replay of a planted events.jsonl: %q, want it named", r.stderr)
					}
				}
				if got, err := os.ReadFile(victim); err != nil || !bytes.Equal(got, victimBytes) {
					t.Fatalf("victim outside the root changed: %q (%v)", got, err)
				}
			})
		}
	}
}

// TestArtifactLinkStaysInside plants a link in artifacts/ where a run's
// folder will be made: the worker cannot start there, and nothing is
// written outside the root.
func TestArtifactLinkStaysInside(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("100ms"))
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "artifacts", "DKT-LINK")); err != nil {
		t.Fatal(err)
	}
	ctl := startController(t, root)
	defer ctl.stop()
	r := runBounded(t, "run", "--root", root, "--task-id", "DKT-LINK", "--goal", "hello")
	if r.code == 0 {
		t.Errorf("a run whose artifact folder is a link succeeded: %+v", r)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Fatalf("the worker wrote %v outside the root", entries)
	}
}

// TestSignalsStopAWaitingCommand: a send waiting on a controller that
// does not answer (stopped with SIGSTOP) ends at once on SIGINT or
// SIGTERM and says which one it was.
func TestSignalsStopAWaitingCommand(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("100ms"))
	ctl := startController(t, root)
	defer ctl.stop()
	if err := syscall.Kill(ctl.pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(ctl.pid(), syscall.SIGCONT)
	for _, tc := range []struct {
		sig  syscall.Signal
		want string
	}{{syscall.SIGINT, "interrupted by user"}, {syscall.SIGTERM, "stopped by SIGTERM"}} {
		cmd := exec.Command(daokit, "send", "--root", root, "--wait", "hello")
		cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
		var errOut lockedBuffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once the command is past start-up (its handler is set
		// before it prints or dials anything, but give the dial a chance
		// to be the thing that waits).
		waitFor(t, 5*time.Second, "send to connect", func() bool { return connectedTo(cmd.Process.Pid) })
		_ = cmd.Process.Signal(tc.sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(commandDeadline):
			_ = cmd.Process.Kill()
			t.Fatalf("send ignored %v", tc.sig)
		}
		if !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("after %v send said %q, want %q", tc.sig, errOut.String(), tc.want)
		}
	}
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// connectedTo reports whether process pid holds a socket.
func connectedTo(pid int) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if link, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(link, "socket:") {
			return true
		}
	}
	return false
}

// lockedBuffer is a bytes.Buffer that a child's output goroutine and the
// test may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
