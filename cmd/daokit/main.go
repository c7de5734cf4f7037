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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels ctx and every command winds down; a
	// second one gets the default action, so a person is never left
	// with a process only SIGKILL can stop.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv)
	stop()
	os.Exit(code)
}
