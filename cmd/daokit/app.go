package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/daokit/daokit/i18n"
	"github.com/spf13/cobra"
)

// Exit codes shared with the Python DAOKit CLI.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitStale       = 2
	exitInterrupted = 130
)

type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// app is what every command receives: the streams, the localizer, the
// environment lookup and the context that ends on Ctrl-C.
type app struct {
	ctx    context.Context
	trap   trapFunc // makes ctx end on Ctrl-C (see needsTrap); nil: never
	io     stdio
	loc    *i18n.Localizer
	getenv func(string) string
	// self is the path of the running daokit binary, for commands that
	// start another daokit process (the window starting a controller).
	self string
	// raw is --raw: agent and worker text reaches a terminal byte for
	// byte. flushOut and flushErr end the neutralizing writers that
	// guardOutput put on a terminal's streams (nil: none).
	raw                bool
	flushOut, flushErr func() error
}

func (a *app) t(id string, kv ...any) string { return a.loc.T(id, kv...) }

func (a *app) printf(format string, args ...any) { fmt.Fprintf(a.io.out, format, args...) }

func (a *app) println(s string) { fmt.Fprintln(a.io.out, s) }

// cliError is a failure a person reads: "<CODE>: <message>" on stderr and
// a non-zero exit, the Python DAOKit's convention.
type cliError struct {
	code string // E_* code, empty for usage errors
	msg  string // already localized
	exit int
}

// Error gives each line of a message of several lines (all the problems
// of a daokit.toml) its own code, so that each reads alone.
func (e *cliError) Error() string {
	if e.code == "" {
		return e.msg
	}
	return e.code + ": " + strings.ReplaceAll(e.msg, "\n", "\n"+e.code+": ")
}

func failf(code, msg string) error { return &cliError{code: code, msg: msg, exit: exitFailure} }

// usageError is a bad invocation; it exits 2 like argparse.
func usageError(msg string) error { return &cliError{msg: msg, exit: exitUsage} }

// exitError carries a non-zero exit with nothing more to print (for
// example check's STALE verdict, already reported on stdout).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// run is the whole CLI as a function, so tests drive it in-process. trap
// makes a command's context end on a signal (nil: it never does).
func run(ctx context.Context, args []string, std stdio, getenv func(string) string, trap trapFunc) int {
	lang, err := i18n.Resolve(langFlag(args), getenv)
	if err != nil && len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd) {
		// A --lang value being typed is not an error yet: complete it.
		lang, err = i18n.English, nil
	}
	if err != nil {
		en := i18n.MustNew(i18n.English)
		var ule *i18n.UnknownLanguageError
		if errors.As(err, &ule) {
			fmt.Fprintln(std.err, en.T("cli.error.unknown_language", "Source", ule.Source, "Value", ule.Value, "Supported", strings.Join(i18n.Supported(), ", ")))
		} else {
			fmt.Fprintln(std.err, err)
		}
		return exitUsage
	}
	a := &app{ctx: ctx, trap: trap, io: std, loc: i18n.MustNew(lang), getenv: getenv, self: selfPath()}
	return a.execute(args)
}

func (a *app) finish(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *cliError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ce):
		fmt.Fprintln(a.io.err, ce.Error())
		return ce.exit
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(a.io.err, "E_INTERRUPTED: "+a.interrupted())
		return exitInterrupted
	default:
		fmt.Fprintln(a.io.err, a.t("cli.error.unexpected", "Error", err.Error()))
		return exitFailure
	}
}

// langFlag finds --lang anywhere in args, so that it works before or after
// the command name and even in a command's --help.
func langFlag(args []string) string {
	for i, arg := range args {
		switch {
		case arg == "--":
			return ""
		case arg == "--lang" || arg == "-lang":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(arg, "--lang="), strings.HasPrefix(arg, "-lang="):
			return arg[strings.Index(arg, "=")+1:]
		}
	}
	return ""
}

// absRoot resolves --root the way the Python tool does: always absolute.
func absRoot(root string) (string, error) {
	if root == "" {
		root = "."
	}
	return filepath.Abs(root)
}

// interrupted says which signal stopped the command: SIGTERM (a service
// manager, kill) is not the person pressing Ctrl-C.
func (a *app) interrupted() string {
	if cause := context.Cause(a.ctx); cause != nil && strings.HasPrefix(cause.Error(), syscall.SIGTERM.String()) {
		return a.t("cli.error.terminated")
	}
	return a.t("cli.error.interrupted")
}
