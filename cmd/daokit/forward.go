package main

import (
	"context"
	"errors"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/relay"
)

// forwardDialPatience bounds the wait for the socket of a controller
// that holds the root: a live one listens within milliseconds of taking
// the lock, so one that does not answer in this time is hung (or is not
// a controller at all), and the command says so instead of waiting.
const forwardDialPatience = 3 * time.Second

// liveController judges the controller holding dir by liveness's one
// rule; a live one carries out the operator commands that write the
// ledger (see forward), since it is the ledger's only writer.
func liveController(dir string) liveness.Controller {
	return liveness.ReadController(dir, time.Now())
}

// forwardable is what a forwarded command checks of dir before it reads
// the ledger: a ledger, on the JSON files (a root the Python tool keeps
// on SQLite is refused here as the local command refuses it).
func (a *app) forwardable(dir, code string) error {
	if err := requireLedger(a, dir); err != nil {
		return failf(code, err.Error())
	}
	if err := requireJSONBackend(a, dir); err != nil {
		return failf(code, err.Error())
	}
	return nil
}

// forward has ctl, the live controller holding dir, carry out op, and
// prints what it answers as the command's own output: its stdout byte
// for byte, or its failure as "<CODE>: <message>" in this reader's
// language, so that the command reads the same as when it runs locally.
// The CLI takes no lock: the controller writes. A connection that drops
// is dialed again and the request resent with its id, which the
// controller answers once.
func (a *app) forward(dir, code string, ctl liveness.Controller, op relay.Operation) error {
	quick, cancel := context.WithTimeout(a.ctx, forwardDialPatience)
	client, err := relay.Dial(quick, dir, relay.DefaultClientConfig())
	cancel()
	if err != nil {
		if a.ctx.Err() != nil {
			return failf(code, a.interrupted())
		}
		return failf(code, a.t("cli.forward.error.no_answer", "Root", dir, "PID", ctl.PID, "Reason", a.describeRelay(err)))
	}
	defer client.Close()
	ctx, stop := context.WithCancelCause(a.ctx)
	defer stop(nil)
	done := make(chan struct{})
	var watch sync.WaitGroup
	watch.Go(func() { watchHolder(ctx, done, dir, ctl.PID, stop) })
	out, err := client.Operate(ctx, op)
	close(done)
	watch.Wait()
	var gone *controllerGoneError
	if errors.As(context.Cause(ctx), &gone) {
		return failf(code, a.t("cli.forward.error.gone", "PID", gone.pid))
	}
	if err != nil {
		return a.relayFail(code, err)
	}
	if f := out.Failure; f != nil {
		return failf(f.Code, a.failureText(f))
	}
	_, err = io.WriteString(a.io.out, out.Output)
	return err
}

// watchHolder ends a forwarded command's wait (cancel with a
// *controllerGoneError) once no live process that is not hung has held
// dir's lock for deadAfter, looked at every deadPoll: the client would otherwise resend
// for ever to a controller that is gone. A successor that takes the root
// meanwhile gets the resend, and answers it from the log if its
// predecessor carried the command out. It returns when done closes.
func watchHolder(ctx context.Context, done <-chan struct{}, dir string, pid int, cancel context.CancelCauseFunc) {
	poll := time.NewTicker(deadPoll)
	defer poll.Stop()
	var lost time.Time
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case now := <-poll.C:
			// A holder whose standing lease lapsed is hung (stopped,
			// stuck): it will not answer either.
			switch ctl := liveness.ReadController(dir, now); {
			case ctl.Live() && !ctl.Hung():
				lost, pid = time.Time{}, ctl.PID
			case lost.IsZero():
				lost = now
			case now.Sub(lost) >= deadAfter:
				cancel(&controllerGoneError{pid: pid})
				return
			}
		}
	}
}

// failureText words a forwarded command's failure: its catalog id with
// its arguments, or its detail as the controller gave it.
func (a *app) failureText(f *relay.Failure) string {
	if f.Message == "" {
		return f.Detail
	}
	names := make([]string, 0, len(f.Args))
	for k := range f.Args {
		names = append(names, k)
	}
	sort.Strings(names)
	kv := make([]any, 0, 2*len(names))
	for _, k := range names {
		kv = append(kv, k, f.Args[k])
	}
	return a.t(f.Message, kv...)
}
