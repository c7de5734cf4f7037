package hooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitGone waits, by pidfd and with a deadline, until the process whose
// pid the hook wrote to pidFile has exited. It reports false if it is
// still running after the deadline.
func waitGone(t *testing.T, pidFile string) bool {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return true
	case err != nil:
		t.Skipf("pidfd_open: %v", err)
	}
	defer unix.Close(fd)
	// A pidfd turns readable when its process exits.
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 5000)
	return err == nil && n == 1
}

func TestCommandHookTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	in := []byte(`{"k":"v"}`)
	out, res := runOne(t, context.Background(), Spec{
		Command: sh(`sleep 30 & echo $! > "$PIDFILE"; wait`), Env: []string{"PIDFILE=" + pidFile}, Timeout: 200 * time.Millisecond,
	}, in)
	if res.Status != StatusTimeout || res.Code != CodeTimeout || &out.Output[0] != &in[0] {
		t.Errorf("got %+v", res)
	}
	if !waitGone(t, pidFile) {
		t.Error("the hook's child outlived it")
	}
}

// The run's end stops a hook that is still running, and its children.
func TestCommandHookStopsWhenTheRunEnds(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the hook has started its child: a hook cancelled
	// before it ran would prove nothing.
	stop := Spec{
		Command: sh(`sleep 30 & echo $! > "$PIDFILE"; wait`), Env: []string{"PIDFILE=" + pidFile}, Timeout: time.Minute,
	}
	go func() {
		for ctx.Err() == nil {
			if data, _ := os.ReadFile(pidFile); len(data) > 0 && strings.HasSuffix(string(data), "\n") {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond) // polling a file the hook writes
		}
	}()
	_, res := runOne(t, ctx, stop, []byte(`{}`))
	if res.Status != StatusSkipped || res.Code != CodeCancelled {
		t.Errorf("got %+v", res)
	}
	if !waitGone(t, pidFile) {
		t.Error("the hook's child outlived the run")
	}
}

func TestCommandHookChildrenDoNotOutliveIt(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The background sleep keeps stdout open after the shell exits.
	_, res := runOne(t, context.Background(), Spec{
		Command: sh(`sleep 30 & echo $! > "$PIDFILE"; cat`), Env: []string{"PIDFILE=" + pidFile},
	}, []byte(`{"k":"v"}`))
	if res.Status != StatusOK {
		t.Errorf("got %+v", res)
	}
	if !waitGone(t, pidFile) {
		t.Error("the hook's child outlived it")
	}
}
