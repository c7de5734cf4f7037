package e2e

import (
	"bytes"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/daokit/daokit/liveness"
)

// controllersOn lists the live `daokit controller` processes whose
// command line names root (as pgrep -f on the root would).
func controllersOn(root string) []int {
	return liveProcs("cmdline", func(cmdline []byte) bool {
		args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		if len(args) < 4 || string(args[1]) != "controller" {
			return false
		}
		for i := 2; i+1 < len(args); i++ {
			if string(args[i]) == "--root" && string(args[i+1]) == root {
				return true
			}
		}
		return false
	})
}

// killOnCleanup ends, at the test's end, a controller the test did not
// start itself (the CLI started it, in a session of its own).
func killOnCleanup(t *testing.T, pid int) {
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGCONT)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	})
}

// TestNoSecondControllerBesideAPausedHolder is the CI defect of two
// controllers outliving a test: `daokit send` that cannot get an answer
// from the root's controller (here paused by SIGSTOP; in CI drowned by a
// socket flood) must not start a second one beside it while it lives.
// It says who holds the root instead. Once that holder is dead (its
// stale pid left in the lock file), send starts its successor.
func TestNoSecondControllerBesideAPausedHolder(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("100ms"))
	ctl := startController(t, root)
	if err := syscall.Kill(ctl.pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	r := run(t, "send", "--root", root, "a job for a paused controller")
	pid := strconv.Itoa(ctl.pid())
	if r.code == 0 || !strings.HasPrefix(r.stderr, "E_SEND_FAILED: the controller (pid "+pid+") holding "+root+" is alive") ||
		!strings.Contains(r.stderr, "no second controller was started") {
		t.Errorf("send beside a paused controller: %+v", r)
	}
	if got := controllersOn(root); len(got) != 1 || got[0] != ctl.pid() {
		t.Errorf("controllers on the root after send: %v, want only the paused %d", got, ctl.pid())
	}
	if strings.Contains(r.stderr, "starting a controller") {
		t.Errorf("send said it started a controller: %q", r.stderr)
	}

	// The holder dies; the lock file still names it. Its successor is
	// started, and carries the instruction out.
	ctl.kill()
	if holder := liveness.LockFilePID(root); holder != ctl.pid() {
		t.Fatalf("lock file names %d, want the dead holder %d", holder, ctl.pid())
	}
	r = run(t, "send", "--root", root, "--wait", "a job for the successor")
	got := controllersOn(root)
	for _, p := range got {
		killOnCleanup(t, p)
	}
	if r.code != 0 {
		t.Fatalf("send after the holder died: %+v", r)
	}
	if len(got) != 1 || got[0] == ctl.pid() || liveness.LockFilePID(root) != got[0] {
		t.Fatalf("controllers on the root after the successor's start: %v (lock file: %d)", got, liveness.LockFilePID(root))
	}
}
