package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/live"
)

// controllerStartTimeout bounds the wait for a started controller's socket.
const controllerStartTimeout = 15 * time.Second

// connect dials the root's controller, starting one when none holds the
// root (unless start is false), the same way the window does (see
// processControllers). progress, if set, is told when a controller is
// being started.
//
// A cold start must not wait for nothing: when no live process holds the
// root's lock there is no controller to wait for, so one is started at
// once, and its socket is dialed every 1 to 5 ms until it listens. A
// live holder that does not answer within controllerStartTimeout (a
// flood of connections, a paused process) is not replaced: Start
// refuses while it lives, and the person is told who holds the root.
// One that died meanwhile gets its successor.
func (a *app) connect(ctx context.Context, root string, start bool, progress func(pid int)) (*relay.Client, error) {
	pc := a.newProcessControllers(root)
	if lockHeld(root) || !start {
		// A controller runs (or is starting): a busy one deserves time
		// to answer. Without one and without leave to start one, the
		// dial fails fast with the relay's own "no controller" error.
		patience := controllerStartTimeout
		if !lockHeld(root) {
			patience = 50 * time.Millisecond
		}
		quick, cancel := context.WithTimeout(ctx, patience)
		client, err := relay.Dial(quick, root, startDialConfig())
		cancel()
		// Another user's controller (refused) is no reason to start one.
		if err == nil || !start || ctx.Err() != nil || relay.Refused(err) {
			return client, err
		}
	}
	// Every problem of daokit.toml, listed here, rather than the last
	// line of a controller that stopped at the first.
	if _, err := a.loadConfig(root); err != nil {
		return nil, err
	}
	proc, err := pc.Start(ctx)
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
	client, err := relay.Dial(wait, root, startDialConfig())
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

// startDialConfig is the relay client's configuration for a controller
// that is starting: a unix socket refuses in microseconds, so retrying
// every 1 to 5 ms finds it listening within a few ms of its readiness.
func startDialConfig() relay.ClientConfig {
	cfg := relay.DefaultClientConfig()
	cfg.MinBackoff, cfg.MaxBackoff = time.Millisecond, 5*time.Millisecond
	return cfg
}

// lockHeld reports whether a live process holds root's controller lock,
// by the pid the holder wrote into the lock file.
func lockHeld(root string) bool {
	return liveness.ReadController(root, time.Now()).Live()
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

// relayFail is a failed exchange with the controller as code, unless
// err already is a complete failure (all of daokit.toml's problems).
func (a *app) relayFail(code string, err error) error {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce
	}
	return failf(code, a.describeRelay(err))
}

// describeRelay renders a relay error for a person.
func (a *app) describeRelay(err error) string {
	var exited *controllerExitError
	var holder *holderLiveError
	switch {
	case errors.As(err, &holder):
		return holder.text
	case errors.As(err, &exited): // first: it wraps the dial's cancellation
		return a.t("cli.error.controller_exited", "PID", exited.pid, "Output", withoutCode(exited.output))
	case errors.Is(err, context.Canceled):
		return a.interrupted()
	}
	return relay.Describe(a.loc, err)
}

// withoutCode drops the "E_…: " that a daokit child put before its
// message, so that the reader sees one code, the command's.
func withoutCode(line string) string {
	code, rest, ok := strings.Cut(line, ": ")
	if ok && strings.HasPrefix(code, "E_") && strings.Trim(code[2:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" {
		return rest
	}
	return line
}
