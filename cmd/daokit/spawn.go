package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/live"
)

// controllerStartTimeout bounds the wait for a started controller's socket.
const controllerStartTimeout = 15 * time.Second

// connect dials the root's controller, starting one when none answers
// (unless start is false), the same way the window does (see
// processControllers). progress, if set, is told when a controller is
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
	proc, err := (&processControllers{self: a.self, root: root, lang: a.loc.Lang()}).Start(ctx)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(proc.PID())
	}
	// Dial while watching the child: a controller that exits at once
	// (a bad daokit.toml) is reported at once, in its own words.
	wait, cancel := context.WithTimeout(ctx, controllerStartTimeout)
	defer cancel()
	exited := make(chan live.Exit, 1)
	var watch sync.WaitGroup
	watch.Go(func() {
		if exit, err := proc.Wait(wait); err == nil {
			exited <- exit
			cancel()
		}
	})
	client, err = relay.Dial(wait, root, relay.DefaultClientConfig())
	cancel()
	watch.Wait()
	if err == nil {
		return client, nil
	}
	select {
	case exit := <-exited:
		return nil, &controllerExitError{pid: proc.PID(), output: exit.Output, err: err}
	default:
		return nil, fmt.Errorf("controller (pid %d) did not open its socket: %w", proc.PID(), err)
	}
}

// controllerExitError is a controller that was started and exited before
// it opened its socket; output is the last line it wrote on stderr.
type controllerExitError struct {
	pid    int
	output string
	err    error
}

func (e *controllerExitError) Error() string {
	return fmt.Sprintf("controller (pid %d) exited: %s: %v", e.pid, e.output, e.err)
}

func (e *controllerExitError) Unwrap() error { return e.err }

// describeRelay renders a relay error for a person.
func (a *app) describeRelay(err error) string {
	var exited *controllerExitError
	switch {
	case errors.As(err, &exited): // first: it wraps the dial's cancellation
		return a.t("cli.error.controller_exited", "PID", exited.pid, "Output", exited.output)
	case errors.Is(err, context.Canceled):
		return a.interrupted()
	}
	return relay.Describe(a.loc, err)
}
