package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/internal/memtrim"
	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

// controllerFlags are the controller's options; the durations override
// daokit.toml only when given.
type controllerFlags struct {
	root                                              string
	checkInterval, warningAfter, staleAfter, idleExit time.Duration
	verbose                                           bool
	set                                               func(name string) bool
}

func newControllerCmd(a *app) *cobra.Command {
	var o controllerFlags
	c := a.command("controller", "cli.controller.summary", func(*cobra.Command, []string) error { return a.runController(o) })
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.DurationVar(&o.checkInterval, "check-interval", 0, "cli.controller.flag.check_interval")
	f.DurationVar(&o.warningAfter, "warning-after", 0, "cli.controller.flag.warning_after")
	f.DurationVar(&o.staleAfter, "stale-after", 0, "cli.controller.flag.stale_after")
	f.DurationVar(&o.idleExit, "idle-exit", 0, "cli.controller.flag.idle_exit")
	f.BoolVar(&o.verbose, "verbose", false, "cli.controller.flag.verbose")
	for _, name := range []string{"check-interval", "warning-after", "stale-after", "idle-exit"} {
		a.defaultText(f, name, "cli.controller.default.config")
	}
	o.set = f.Changed
	return c
}

func (a *app) runController(o controllerFlags) error {
	oneProcessor()
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	if err := requireJSONBackend(a, dir); err != nil {
		return failf("E_CONTROLLER_FAILED", err.Error())
	}
	cfg, err := a.loadConfig(dir)
	if err != nil {
		return err
	}
	if o.set("check-interval") {
		cfg.Heartbeat.CheckInterval = config.Duration(o.checkInterval)
	}
	if o.set("warning-after") {
		cfg.Heartbeat.WarningAfter = config.Duration(o.warningAfter)
	}
	if o.set("stale-after") {
		cfg.Heartbeat.StaleAfter = config.Duration(o.staleAfter)
	}
	if o.set("idle-exit") {
		cfg.Controller.IdleExit = config.Duration(o.idleExit)
	}
	if err := cfg.Validate(); err != nil {
		return a.configFailure(dir, err)
	}
	logger, closeLog, err := controllerLogger(dir, a.io.err, o.verbose)
	if err != nil {
		return failf("E_CONTROLLER_FAILED", a.t("cli.controller.error.log",
			"Path", ledger.Layout{Root: dir}.Path("controller.log"), "Reason", a.osReason(err)))
	}
	defer closeLog()
	err = controller.Run(a.ctx, controller.Options{
		Root: dir, Config: cfg, Self: a.self, Lang: a.loc.Lang(), Logger: logger,
		Ready: func(socket string) {
			a.println(a.t("cli.controller.ready", "Socket", socket, "PID", os.Getpid()))
			// A controller lives long: the binary's pages it ran only to
			// start (every package's initialisation) go back
			// (memtrim.Settle); what it runs again comes back on use.
			memtrim.Settle()
		},
	})
	var locked *ledger.LockedError
	var answering *controller.HolderAnswersError
	var unreadable *controller.StateUnreadableError
	var gone *controller.RootGoneError
	switch {
	case errors.As(err, &gone) && gone.Replaced:
		return failf("E_CONTROLLER_FAILED", a.t("cli.controller.error.root_replaced", "Root", dir))
	case errors.As(err, &gone):
		return failf("E_CONTROLLER_FAILED", a.t("cli.controller.error.root_gone", "Root", dir))
	case errors.As(err, &unreadable):
		return failf("E_STATE_UNREADABLE", a.t("cli.controller.error.state_unreadable", "File", unreadable.File, "Reason", unreadable.Err.Error()))
	case errors.As(err, &answering):
		return failf("E_CONTROLLER_FAILED", a.t("cli.controller.error.holder_answers", "Root", dir, "PID", answering.PID))
	case errors.As(err, &locked) && locked.HolderPID == 0:
		return failf("E_CONTROLLER_FAILED", a.t("cli.controller.error.locked_starting", "Root", dir))
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
	f, err := ledger.Layout{Root: root}.OpenFile("controller.log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
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

// oneProcessor runs the controller's Go code on one processor, unless
// GOMAXPROCS says otherwise. The controller coordinates while its agents
// do the work, and its goroutines hand each other work many times a step:
// on one P a hand-off runs on the thread that made it, where with two it
// wakes another thread, and idle threads spin looking for work on the
// cores the agents need. A blocking system call still lets the other
// goroutines run (the runtime hands its P on). On a two-core machine this
// took 0.8 ms per iteration off the loop's machinery (alternating runs of
// the loop benchmark, lower in every pair).
func oneProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
