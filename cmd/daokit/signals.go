package main

import (
	"context"
	"slices"

	"github.com/spf13/cobra"
)

// annotQuickRead marks a command that only reads and prints at once
// (status, check, replay, diff, completion). It keeps the default action
// of SIGINT and SIGTERM: it has nothing to wind down, and installing
// handlers costs a runtime thread and a noticeable share of its run
// (the issue asks status --json for under 3× a Go hello-world's start).
const annotQuickRead = "daokit_quick_read"

// quickRead marks c as a quick read (see annotQuickRead).
func quickRead(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotQuickRead] = "true"
	return c
}

// trapFunc makes a context end on the signals that stop a command (main
// passes interruptible; tests, which run the CLI in-process, pass nil).
type trapFunc func(context.Context) (context.Context, context.CancelFunc)

// needsTrap reports whether the command args run should end its context
// on a signal rather than die of it: every command but a quick read, and
// not a request for help.
func needsTrap(root *cobra.Command, args []string) bool {
	if slices.ContainsFunc(args, func(s string) bool { return s == "--help" || s == "-h" }) {
		return false
	}
	target, _, err := root.Find(args)
	return err != nil || target == nil || target.Annotations[annotQuickRead] == ""
}
