package e2e

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// diskFullGrace is how long a controller on a full disk may take to end
// after SIGTERM: it holds its unwritten events for 10 s (the
// controller's closeRetry), stops its worker (200 ms of stop grace), and
// a loaded machine gets some room.
const diskFullGrace = 20 * time.Second

// TestSIGTERMOnAFullDiskEndsTheController: a controller whose disk is
// full and stays full ends on SIGTERM within its grace, and the
// instruction it had acknowledged is not lost: once there is room again a
// successor resumes it and runs it to its end.
func TestSIGTERMOnAFullDiskEndsTheController(t *testing.T) {
	t.Parallel()
	root := tmpfsProject(t, "3s")
	ctl := startController(t, root)
	r := runBounded(t, "send", "--root", root, "--json", "the acknowledged instruction")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	started := waitEvent(t, root, "the worker's start", 20*time.Second, func(e ledger.Event) bool {
		return e.EventType == ledger.EventStepStarted
	})

	filler := fillDisk(t, root)

	stopped := time.Now()
	_ = ctl.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ctl.done:
	case <-time.After(diskFullGrace):
		_ = ctl.cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, in the log
		<-ctl.done
		t.Fatalf("the controller on a full disk did not end within %v of SIGTERM: %v", diskFullGrace, ctl.err)
	}
	t.Logf("the controller on a full disk ended %v after SIGTERM (%v)", time.Since(stopped).Round(time.Millisecond), ctl.err)

	// Room again: a successor resumes the acknowledged instruction.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	successor := startController(t, root)
	defer successor.stop()
	waitEvent(t, root, "the resumed run's end", 60*time.Second, func(e ledger.Event) bool {
		return e.TaskID == started.TaskID && e.EventType == ledger.EventStepCompleted
	})
}
