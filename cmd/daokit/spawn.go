package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// controllerStartTimeout bounds the wait for a started controller's socket.
const controllerStartTimeout = 15 * time.Second

// startController starts `daokit controller --root root` detached from
// this process: its own session (so closing a terminal or a window does
// not stop work in flight), stdio on /dev/null, logging to
// state/controller.log. It returns the child's pid.
func startController(self, root, lang string) (int, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(self, "controller", "--root", root, "--lang", lang)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start controller: %w", err)
	}
	pid := cmd.Process.Pid
	// Reap it if it exits while we live; a detached child is otherwise a
	// zombie until we exit.
	go func() { _ = cmd.Wait() }()
	return pid, nil
}

// connect dials the root's controller, starting one when none answers
// (unless start is false). progress, if set, is told when a controller is
// being started.
func (a *app) connect(ctx context.Context, root string, start bool, progress func(pid int)) (*relay.Client, error) {
	// With a fallback (starting a controller) a short wait decides; with
	// none, a busy controller deserves time to answer.
	patience := 500 * time.Millisecond
	if !start {
		patience = 10 * time.Second
	}
	quick, cancel := context.WithTimeout(ctx, patience)
	client, err := relay.Dial(quick, root, relay.DefaultClientConfig())
	cancel()
	if err == nil {
		return client, nil
	}
	if !start || ctx.Err() != nil {
		return nil, err
	}
	if _, statErr := os.Stat(filepath.Join(root, ledger.StateDir)); statErr != nil {
		if _, initErr := ledger.Init(root, time.Now()); initErr != nil {
			return nil, initErr
		}
	}
	pid, err := startController(a.self, root, a.loc.Lang())
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(pid)
	}
	wait, cancel := context.WithTimeout(ctx, controllerStartTimeout)
	defer cancel()
	client, err = relay.Dial(wait, root, relay.DefaultClientConfig())
	if err != nil {
		return nil, fmt.Errorf("controller (pid %d) did not open its socket: %w", pid, err)
	}
	return client, nil
}

// describeRelay renders a relay error for a person.
func (a *app) describeRelay(err error) string {
	if errors.Is(err, context.Canceled) {
		return a.t("cli.error.interrupted")
	}
	return relay.Describe(a.loc, err)
}
