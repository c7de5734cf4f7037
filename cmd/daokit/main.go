// Command daokit is a terminal workbench for a team of coding agents: an
// observer-relay window, the controller that executes, and the ledger
// tools (init, status, check, replay) that read and repair its state.
//
// Run "daokit --help" for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv, interruptible))
}

// interruptible returns a context that ends on SIGINT or SIGTERM. The
// first signal cancels it and the command winds down; a second one gets
// the default action, so a person is never left with a process only
// SIGKILL can stop. stop restores the default action.
func interruptible(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
