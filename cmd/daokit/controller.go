package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/ledger"
)

func init() {
	register(command{name: "controller", summary: "cli.controller.summary", run: runController})
}

func runController(a *app, args []string) error {
	f := a.newFlags(command{name: "controller", summary: "cli.controller.summary"})
	root := f.root()
	checkInterval := f.Duration("check-interval", 0, "cli.controller.flag.check_interval")
	warningAfter := f.Duration("warning-after", 0, "cli.controller.flag.warning_after")
	staleAfter := f.Duration("stale-after", 0, "cli.controller.flag.stale_after")
	idleExit := f.Duration("idle-exit", -1, "cli.controller.flag.idle_exit")
	verbose := f.Bool("verbose", false, "cli.controller.flag.verbose")
	if err := f.parse(args); err != nil {
		return err
	}
	dir, err := absRoot(*root)
	if err != nil {
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	if err := requireRoot(a, dir); err != nil {
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	cfg, err := config.Load(dir)
	if err != nil {
		return failf("E_CONFIG_INVALID", config.AsErrors(err).Localize(a.loc))
	}
	if f.set("check-interval") {
		cfg.Heartbeat.CheckInterval = config.Duration(*checkInterval)
	}
	if f.set("warning-after") {
		cfg.Heartbeat.WarningAfter = config.Duration(*warningAfter)
	}
	if f.set("stale-after") {
		cfg.Heartbeat.StaleAfter = config.Duration(*staleAfter)
	}
	if f.set("idle-exit") {
		cfg.Controller.IdleExit = config.Duration(*idleExit)
	}
	if err := cfg.Validate(); err != nil {
		return failf("E_CONFIG_INVALID", config.AsErrors(err).Localize(a.loc))
	}
	logger, closeLog, err := controllerLogger(dir, a.io.err, *verbose)
	if err != nil {
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	defer closeLog()
	err = controller.Run(a.ctx, controller.Options{
		Root: dir, Config: cfg, Self: a.self, Lang: a.loc.Lang(), Logger: logger,
		Ready: func(socket string) {
			a.println(a.t("cli.controller.ready", "Socket", socket, "PID", os.Getpid()))
		},
	})
	var locked *ledger.LockedError
	switch {
	case errors.As(err, &locked):
		return failf("E_CONTROLLER_FAILED", a.t("cli.controller.error.locked", "Root", dir, "PID", locked.HolderPID))
	case err != nil:
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	return nil
}

// controllerLogger logs to <root>/state/controller.log, and also to
// stderr with --verbose (the controller in the foreground, for debugging).
func controllerLogger(root string, stderr io.Writer, verbose bool) (*slog.Logger, func(), error) {
	path := filepath.Join(root, ledger.StateDir, "controller.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	var w io.Writer = f
	if verbose {
		w = io.MultiWriter(f, stderr)
	}
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})
	return slog.New(h), func() { f.Close() }, nil
}
