package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// stallingController stands in for a controller that takes a forwarded
// command and dies before it answers: HandleOperation reports that it
// was called and then waits for the server to shut down.
type stallingController struct{ entered chan relay.Operation }

func (s *stallingController) HandleInstruction(context.Context, relay.Request, relay.Instruction) (relay.Ack, error) {
	return relay.Ack{}, &relay.Error{Code: relay.CodeUnavailable}
}

func (s *stallingController) HandleControl(context.Context, relay.Request, relay.Control) (relay.Ack, error) {
	return relay.Ack{}, &relay.Error{Code: relay.CodeUnavailable}
}

func (s *stallingController) HandleObserve(context.Context, relay.Request) (relay.Status, error) {
	return relay.Status{}, nil
}

func (s *stallingController) HandleOperation(ctx context.Context, _ relay.Request, op relay.Operation) (relay.Outcome, error) {
	s.entered <- op
	<-ctx.Done()
	return relay.Outcome{}, ctx.Err()
}

// TestForwardedCommandGivesUpOnAControllerThatIsGone: the live holder of
// the root takes the forwarded takeover and dies before it answers, and
// no controller takes its place: the command does not resend for ever,
// it fails saying the takeover may or may not have been done. The
// holder is a real process whose pid is in the lock file, as a
// controller's is; the socket is served by the relay's own server.
func TestForwardedCommandGivesUpOnAControllerThatIsGone(t *testing.T) {
	t.Parallel()
	root := interruptedRun(t, 0)
	holder := exec.Command("sleep", "60")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			_ = holder.Process.Kill()
			_ = holder.Wait()
		}
	})
	if err := os.WriteFile(filepath.Join(root, ledger.StateDir, ledger.LockFile), []byte(strconv.Itoa(holder.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock, err := relay.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := relay.ListenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	h := &stallingController{entered: make(chan relay.Operation, 1)}
	srv, err := relay.NewServer(h, relay.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), l) }()
	t.Cleanup(func() { _ = srv.Close() })

	done := make(chan cliResult, 1)
	go func() { done <- runCLI(t, nil, "takeover", "--root", root, "--successor-pid", "4242") }()
	op := <-h.entered
	if op.Kind != relay.OperateTakeover || op.TaskID != "DKT-900" || op.RunID != "RUN-900" || op.SuccessorPID != 4242 {
		t.Errorf("forwarded %+v", op)
	}
	// The holder dies: its process ends and its socket closes.
	_ = holder.Process.Kill()
	_ = holder.Wait()
	reaped = true
	_ = srv.Close()
	<-served
	r := <-done
	want := "E_TAKEOVER_FAILED: the controller (pid " + strconv.Itoa(holder.Process.Pid) + ") stopped"
	if r.code != exitFailure || r.stdout != "" || !strings.HasPrefix(r.stderr, want) {
		t.Fatalf("takeover when the controller died: %+v\nwant stderr %q…", r, want)
	}
}
