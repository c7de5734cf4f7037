package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitExited waits, up to within, for the test's controller to exit.
func waitExited(t *testing.T, ctl *controllerProc, within time.Duration) {
	t.Helper()
	select {
	case <-ctl.done:
	case <-time.After(within):
		t.Fatalf("controller %d still runs %s after its root went", ctl.pid(), within)
	}
}

// removeWhileWritten removes dir while a controller still writes into
// it: a file created during the removal makes it fail with "directory not
// empty", so it is removed again until it is gone, as a person repeats
// `rm -rf`.
func removeWhileWritten(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := os.RemoveAll(dir)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
}

// TestControllerEndsWhenItsRootIsDeleted: `rm -rf` of the root under a
// running controller (the end of a test, a person cleaning up) ends it
// within seconds, non-zero and saying why, with the worker of its
// running step dead, even while an observer keeps a connection open
// (which holds off the idle exit for ever).
func TestControllerEndsWhenItsRootIsDeleted(t *testing.T) {
	t.Parallel()
	root := newRootIn(t, filepath.Join(t.TempDir(), "root"), simConfig("60s"))
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "a long job"))
	worker := startedPID(t, root, taskID)
	removeWhileWritten(t, root)
	waitExited(t, ctl, 10*time.Second)
	if ctl.err == nil || !strings.Contains(ctl.err.Error(), "E_CONTROLLER_FAILED: the root "+root+" was deleted") {
		t.Errorf("controller's exit: %v", ctl.err)
	}
	waitGone(t, worker)
}

// TestControllerEndsWhenItsRootIsReplaced: a new folder at the root's
// path is another root; the controller of the old one ends, non-zero,
// and writes nothing into the new folder.
func TestControllerEndsWhenItsRootIsReplaced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := newRootIn(t, filepath.Join(dir, "root"), simConfig("60s"))
	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "a long job"))
	worker := startedPID(t, root, taskID)
	if err := os.Rename(root, filepath.Join(dir, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	waitExited(t, ctl, 10*time.Second)
	if ctl.err == nil || !strings.Contains(ctl.err.Error(), "was replaced by another folder") {
		t.Errorf("controller's exit: %v", ctl.err)
	}
	waitGone(t, worker)
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("the controller wrote into the new folder: %v", left)
	}
}
