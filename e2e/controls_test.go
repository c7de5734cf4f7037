package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// waitingSend is `daokit send --wait` running in the background.
type waitingSend struct {
	cmd         *exec.Cmd
	out, errOut bytes.Buffer
	done        chan struct{}
	code        int
}

func startSendWait(t *testing.T, root, text string) *waitingSend {
	t.Helper()
	s := &waitingSend{done: make(chan struct{})}
	s.cmd = exec.Command(daokit, "send", "--root", root, "--wait", "--no-start", text)
	s.cmd.Env = append(os.Environ(), "DAOKIT_LANG=en")
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.errOut
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := s.cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			s.code = exit.ExitCode()
		}
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	return s
}

// ended waits for the send to exit; a wait that never ends fails the test.
func (s *waitingSend) ended(t *testing.T, within time.Duration) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(within):
		t.Fatalf("send --wait still waits %v after its controller died:\n%s\n%s", within, s.out.String(), s.errOut.String())
	}
}

// TestSendWaitNoticesADeadController: the controller of a run that
// `send --wait` follows is killed and nothing restarts it: the wait ends
// non-zero and says so, instead of hanging for ever.
func TestSendWaitNoticesADeadController(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("30s"))
	ctl := startController(t, root)
	s := startSendWait(t, root, "a long job")
	waitEvent(t, root, "STEP_STARTED", 20*time.Second, func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted })
	ctl.kill()
	s.ended(t, 20*time.Second)
	if s.code == 0 || !strings.Contains(s.errOut.String(), "no controller took over") {
		t.Fatalf("send --wait ended %d after its controller died:\n%s\n%s", s.code, s.out.String(), s.errOut.String())
	}
}

// TestSendWaitFollowsASuccessor: the controller is killed mid-run and a
// successor takes the root: the wait follows the resumed run to DONE.
func TestSendWaitFollowsASuccessor(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("2s"))
	ctl := startController(t, root)
	s := startSendWait(t, root, "a job that outlives its controller")
	waitEvent(t, root, "STEP_STARTED", 20*time.Second, func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted })
	ctl.kill()
	next := startController(t, root)
	s.ended(t, 60*time.Second)
	if s.code != 0 || !strings.Contains(s.out.String(), "is DONE") {
		t.Fatalf("send --wait ended %d across a successor:\n%s\n%s", s.code, s.out.String(), s.errOut.String())
	}
	next.stop()
}

// TestSendCancelEndsABlockedRun: `daokit send --cancel` on a run that
// ended BLOCKED is accepted and ends it FAILED with the cancel's reason.
func TestSendCancelEndsABlockedRun(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(simConfig("1s"), "max_restarts = 20", "max_restarts = 1", 1)
	cfg = strings.Replace(cfg, `"--duration", "1s", "--lines", "6"`, `"--hang-after", "1"`, 1)
	root := newRoot(t, cfg)
	ctl := startController(t, root)
	if r := run(t, "send", "--root", root, "--wait", "hang until blocked"); r.code == 0 {
		t.Fatalf("send --wait of a run that blocks exited 0:\n%s", r.stdout)
	}
	waitEvent(t, root, "RUN_FINISHED BLOCKED", 30*time.Second, func(e ledger.Event) bool {
		return op(e) == "RUN_FINISHED" && e.Payload.String("status") == ledger.StatusBlocked
	})
	if r := run(t, "send", "--root", root, "--cancel"); r.code != 0 {
		t.Fatalf("send --cancel of a BLOCKED run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	end := waitEvent(t, root, "the cancel's RUN_FINISHED", 20*time.Second, func(e ledger.Event) bool {
		return op(e) == "RUN_FINISHED" && e.Payload.String("reason_code") == "WORKER_CANCELLED"
	})
	if end.Payload.String("status") != ledger.StatusFailed || end.Payload.String("ended_from") != ledger.StatusBlocked {
		t.Errorf("the cancel ended the run %v", end.Payload)
	}
	ctl.stop()
}
