package main

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/daokit/daokit/dashboard"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui"
	"github.com/spf13/cobra"
)

// dashboardFlags are dashboard's options (the Python tool's --root,
// --host and --port, with its defaults, and daokit's --read-only).
type dashboardFlags struct {
	root, host string
	port       int
	readOnly   bool
	noStart    bool
}

// newDashboardCmd is `daokit dashboard`: the live ledger as a web page on
// this machine, fed by the window's ledger feed, forwarding instructions
// through the window's relay link.
func newDashboardCmd(a *app) *cobra.Command {
	var o dashboardFlags
	c := a.command("dashboard", "dashboard.cli.summary", func(c *cobra.Command, _ []string) error { return a.runDashboard(c, o) })
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.StringVar(&o.host, "host", "127.0.0.1", "dashboard.cli.flag.host")
	f.IntVar(&o.port, "port", 8420, "dashboard.cli.flag.port")
	f.BoolVar(&o.readOnly, "read-only", false, "dashboard.cli.flag.read_only")
	f.BoolVar(&o.noStart, "no-start", false, "tui.cli.flag.no_start")
	return c
}

// isLoopback reports whether host names this machine only: the page
// carries its token in plain HTTP, which must not cross a network.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (a *app) runDashboard(c *cobra.Command, o dashboardFlags) error {
	if !isLoopback(o.host) {
		return a.usage(c, a.t("dashboard.cli.error.host", "Host", o.host))
	}
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_DASHBOARD_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_DASHBOARD_FAILED", err.Error())
	}
	token, err := dashboard.NewToken()
	if err != nil {
		return failf("E_DASHBOARD_FAILED", err.Error())
	}
	addr := net.JoinHostPort(o.host, strconv.Itoa(o.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failf("E_DASHBOARD_FAILED", a.t("dashboard.cli.error.listen", "Addr", addr, "Err", err.Error()))
	}
	defer ln.Close()
	logger := slog.New(slog.NewTextHandler(a.io.err, &slog.HandlerOptions{Level: slog.LevelWarn}))

	feed := tui.NewLedgerSource(dir, dashboard.DefaultTail)
	defer feed.Close()
	opts := dashboard.Options{Feed: feed, Token: token, Lang: a.loc.Lang(), ReadOnly: o.readOnly, Logger: logger}
	if !o.readOnly {
		// The window's relay: a client that connects (and reconnects) in
		// the background, so a controller started later is found.
		cfg := relay.DefaultClientConfig()
		cfg.MaxBackoff, cfg.Logger = 2*time.Second, logger
		client, err := relay.NewClient(dir, cfg)
		if err != nil {
			return failf("E_DASHBOARD_FAILED", err.Error())
		}
		defer client.Close()
		// A started controller's reaper stops waiting when the dashboard
		// ends (first endLife, then the wait: LIFO).
		var reapers sync.WaitGroup
		life, endLife := context.WithCancel(a.ctx)
		defer reapers.Wait()
		defer endLife()
		opts.Relay = &startingRelay{a: a, start: !o.noStart, link: tui.NewRelayLink(client), life: life, wg: &reapers,
			ctl: a.newProcessControllers(dir)}
	}
	srv, err := dashboard.New(opts)
	if err != nil {
		return failf("E_DASHBOARD_FAILED", err.Error())
	}
	page := url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/", RawQuery: url.Values{"token": {token}}.Encode()}
	a.println(a.t("dashboard.cli.serving", "Root", dir, "URL", page.String()))
	a.println(a.t("dashboard.cli.stop"))
	if err := srv.Serve(a.ctx, ln); err != nil {
		return failf("E_DASHBOARD_FAILED", err.Error())
	}
	// Ctrl-C is how a dashboard is stopped: an end, not a failure.
	return nil
}
