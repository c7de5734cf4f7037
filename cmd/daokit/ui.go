package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/hooks"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui"
	"github.com/daokit/daokit/tui/component/events"
	"github.com/daokit/daokit/tui/memory"
	"github.com/daokit/daokit/tui/relayctx"
	"github.com/spf13/cobra"
)

// newUICmd opens the window on --root: it forwards what the person types
// to the root's controller, starting one when none is live.
func newUICmd(a *app) *cobra.Command { return a.windowCommand("ui", "tui.cli.ui.summary", false) }

// newWatchCmd opens the same window read-only: it only observes the
// ledger, which may have been written by another tool.
func newWatchCmd(a *app) *cobra.Command {
	return a.windowCommand("watch", "tui.cli.watch.summary", true)
}

// windowFlags are the options of the window commands.
type windowFlags struct {
	root, logPath       string
	noStart, initLedger bool
	// relayPolicy overrides [relay] policy of daokit.toml ("" keeps it).
	relayPolicy string
	// remote names a root on a hub: the window reads its mirror and
	// sends through the hub to its leader.
	remote remoteFlags
}

// windowCommand is ui, watch, or the bare daokit (the root command).
func (a *app) windowCommand(name, summary string, readOnly bool) *cobra.Command {
	var o windowFlags
	c := a.command(name, summary, func(c *cobra.Command, _ []string) error { return a.runWindow(c, o, readOnly) })
	c.Annotations = map[string]string{annotDraws: "window"}
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.StringVar(&o.logPath, "log", "", "tui.cli.flag.log")
	if !readOnly {
		f.BoolVar(&o.noStart, "no-start", false, "tui.cli.flag.no_start")
		f.BoolVar(&o.initLedger, "init", false, "cli.flag.init")
		f.StringVar(&o.relayPolicy, "relay-policy", "", "cli.flag.relay_policy")
	}
	a.addRemoteFlags(f, &o.remote)
	return c
}

func (a *app) runWindow(c *cobra.Command, o windowFlags, readOnly bool) error {
	name := c.Name()
	if o.relayPolicy != "" && o.relayPolicy != config.RelayPolicyOn && o.relayPolicy != config.RelayPolicyOff {
		return a.usage(c, a.t("cli.error.relay_policy", "Value", o.relayPolicy))
	}
	if !a.hasTerminal() {
		return failf("E_UI_FAILED", a.t("cli.ui.error.no_terminal"))
	}
	if o.remote.on() {
		if o.initLedger || o.noStart {
			return usageError(a.t("remote.cli.error.local_flag"))
		}
		dir, stop, err := a.remoteFolder(o.remote, c.Name())
		if err != nil {
			return err
		}
		defer stop()
		o.root = dir
	}
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_UI_FAILED", err.Error())
	}
	if err := a.windowLedger(dir, o, readOnly || o.remote.on()); err != nil {
		return failf("E_UI_FAILED", err.Error())
	}
	logger, closeLog, err := windowLogger(o.logPath)
	if err != nil {
		return failf("E_UI_FAILED", err.Error())
	}
	defer closeLog()

	feed := tui.NewLedgerSource(dir, events.DefaultCapacity)
	defer feed.Close()
	opts := tui.Options{
		Root:      dir,
		ReadOnly:  readOnly,
		Lang:      a.loc.Lang(),
		Feed:      feed,
		Wide:      tui.ApplyWidthPolicy(a.getenv),
		Logger:    logger,
		Attention: windowAttention(dir, logger),
		// The issues view and the roles pane read the team's outbox
		// whatever its backend, a hub's included, always read-only.
		OpenOutbox: openOutboxReadOnly,
	}
	if !readOnly && o.remote.on() {
		// Nothing to start here: the root's controller runs on the
		// leader's host, and its answers come through the hub.
		link, err := a.newHubRelay(o.remote)
		if err != nil {
			return err
		}
		defer link.Close()
		opts.Relay = tui.NewRelayLink(link)
		opts.Context = relayctx.FileStore{Path: filepath.Join(dir, "state", relayctx.FileName)}
		opts.Memory = relayctx.FileStore{Path: filepath.Join(dir, "state", memory.FileName)}
		policy := windowPolicy(dir, o.relayPolicy, logger)
		opts.ContextPolicy = &policy
	} else if !readOnly {
		cfg := relay.DefaultClientConfig()
		cfg.MaxBackoff, cfg.Logger = 2*time.Second, logger
		client, err := relay.NewClient(dir, cfg)
		if err != nil {
			return failf("E_UI_FAILED", err.Error())
		}
		defer client.Close()
		opts.Relay = tui.NewRelayLink(client)
		opts.Context = relayctx.FileStore{Path: filepath.Join(dir, "state", relayctx.FileName)}
		opts.Memory = relayctx.FileStore{Path: filepath.Join(dir, "state", memory.FileName)}
		policy := windowPolicy(dir, o.relayPolicy, logger)
		opts.ContextPolicy = &policy
		if !o.noStart {
			opts.Controllers = a.newProcessControllers(dir)
		}
	}
	ro := tui.RunOptions{AltScreen: true}
	if a.io.in != os.Stdin {
		ro.Input = a.io.in
	}
	if a.io.out != os.Stdout {
		ro.Output = a.io.out
	}
	if err := tui.Run(a.ctx, opts, ro); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		logger.Error("window stopped", "err", err)
		return failf("E_UI_FAILED", a.t("cli.ui.error.window", "Name", name))
	}
	return nil
}

// hasTerminal reports whether the window can draw: its output is a
// terminal and so is its input, or /dev/tty can be opened for keys (as
// the window does when stdin is a pipe). Streams other than the
// process's own (tests) count as terminals.
func (a *app) hasTerminal() bool {
	if a.io.out != os.Stdout || a.io.in != os.Stdin {
		return true
	}
	if !term.IsTerminal(os.Stdout.Fd()) {
		return false
	}
	if term.IsTerminal(os.Stdin.Fd()) {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	_ = tty.Close()
	return true
}

// windowLedger makes sure the window opens on a ledger. watch only reads;
// ui in a folder without one creates state/ (nothing else) with --init
// or when the person says yes.
func (a *app) windowLedger(dir string, o windowFlags, readOnly bool) error {
	err := requireLedger(a, dir)
	if err == nil && !readOnly {
		// The window starts a controller, which writes.
		return requireJSONBackend(a, dir)
	}
	if readOnly || !errors.Is(err, errNoLedger) {
		return err
	}
	if o.initLedger {
		return ledgerOrInit(a, dir, true)
	}
	created, askErr := a.askToCreate(dir)
	if askErr != nil {
		return askErr
	}
	if !created {
		return err
	}
	return nil
}

// windowPolicy is how the window compacts its relay context: the
// thresholds of daokit.toml's [compact], the built-in compaction, then
// its pre-compact hooks; with the relay policy off (override, else
// [relay] policy) it never compacts. A configuration that does not load
// costs the configured thresholds and hooks (the controller reports the
// configuration error), not the override.
func windowPolicy(root, override string, logger *slog.Logger) relayctx.Policy {
	p := relayctx.DefaultPolicy()
	p.Hooks = compact.NewHooks()
	p.Manual = override == config.RelayPolicyOff
	cfg, err := config.Load(root)
	if err != nil {
		logger.Warn("configuration not loaded; no pre-compact hooks", "err", err)
		return p
	}
	p.Triggers = compact.TriggersOf(cfg.Compact)
	if override == "" {
		p.Manual = cfg.Relay.Policy == config.RelayPolicyOff
	}
	for _, h := range cfg.HookSpecsAt(config.HookPreCompact) {
		if err := p.Hooks.AddCommand(hooks.SpecOf(h)); err != nil {
			logger.Warn("pre-compact hook not added", "name", h.Name, "err", err)
		}
	}
	return p
}

// windowLogger logs to path, or nowhere: while the window runs nothing
// may write to the terminal.
func windowLogger(path string) (*slog.Logger, func(), error) {
	if path == "" {
		return slog.New(slog.DiscardHandler), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	var w io.Writer = f
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
	return slog.New(h).With("pid", os.Getpid()), func() { _ = f.Close() }, nil
}
