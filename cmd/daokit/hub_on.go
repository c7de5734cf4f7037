//go:build !nohub

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/spf13/cobra"
)

// hubStopWait bounds a clean stop's wait for health and metrics
// requests in flight; the server itself always stops.
const hubStopWait = 5 * time.Second

// runHub starts the hub and serves until SIGINT or SIGTERM, then stops
// it cleanly (JetStream closes its store; nothing acknowledged is lost
// either way, a SIGKILL included).
func (a *app) runHub(c *cobra.Command, o hubFlags) error {
	level := slog.LevelWarn
	if o.verbose {
		level = slog.LevelDebug
	}
	dir := a.hubDataDir(o.data)
	h, err := hub.Start(hub.Options{
		Listen: o.listen, DataDir: dir, TLSCert: o.tlsCert, TLSKey: o.tlsKey,
		Anonymous: o.anonymous, Monitor: o.monitor,
		Logger: slog.New(slog.NewTextHandler(a.io.err, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		return a.hubError(c, err)
	}
	a.println(a.t("hub.cli.serving", "URL", h.ClientURL(), "Dir", dir))
	a.println(a.t("hub.cli.credentials", "File", h.CredentialsFile()))
	if u := h.MonitorURL(); u != "" {
		a.println(a.t("hub.cli.monitor", "Health", u+"/healthz", "Metrics", u+"/metrics"))
	}
	if host, _, _ := net.SplitHostPort(o.listen); o.tlsCert == "" && !hub.IsLoopback(host) {
		fmt.Fprintln(a.io.err, a.t("hub.cli.warn.plaintext", "Addr", o.listen))
	}
	a.println(a.t("hub.cli.stop"))
	a.serveHub(h)
	ctx, cancel := context.WithTimeout(context.Background(), hubStopWait)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		return failf("E_HUB_FAILED", err.Error())
	}
	a.println(a.t("hub.cli.stopped"))
	// A signal is how a hub is stopped: an end, not a failure.
	return nil
}

// hubError words a failed start in the reader's language, naming what
// to fix; anonymous access beyond loopback is a usage error.
func (a *app) hubError(c *cobra.Command, err error) error {
	var he *hub.Error
	if !errors.As(err, &he) {
		return failf("E_HUB_FAILED", err.Error())
	}
	reason := ""
	if he.Err != nil {
		reason = he.Err.Error()
	}
	var msg string
	switch he.Kind {
	case hub.KindAnonymous:
		return a.usage(c, a.t("hub.cli.error.anonymous", "Addr", he.Subject))
	case hub.KindPortBusy:
		msg = a.t("hub.cli.error.port_busy", "Addr", he.Subject)
	case hub.KindListen:
		msg = a.t("hub.cli.error.listen", "Addr", he.Subject, "Err", reason)
	case hub.KindDataDir:
		msg = a.t("hub.cli.error.data_dir", "Dir", he.Subject, "Err", reason)
	case hub.KindDataDirInUse:
		msg = a.t("hub.cli.error.data_dir_in_use", "Dir", he.Subject)
	case hub.KindCredentials:
		msg = a.t("hub.cli.error.credentials", "File", he.Subject, "Err", reason)
	case hub.KindTLS:
		msg = a.t("hub.cli.error.tls", "File", he.Subject, "Err", reason)
	default:
		msg = a.t("hub.cli.error.start", "Addr", he.Subject, "Err", reason)
	}
	return failf("E_HUB_FAILED", msg)
}

// serveHub waits for the end, reloading the issued keys on each SIGHUP
// (`daokit hub creds` adds them while the hub runs). A registry that
// cannot be read is reported and changes nothing.
func (a *app) serveHub(h *hub.Hub) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-a.ctx.Done():
			return
		case <-hup:
			if err := h.ReloadUsers(); err != nil {
				fmt.Fprintln(a.io.err, a.hubError(nil, err).Error())
				continue
			}
			a.println(a.t("hub.cli.reloaded"))
		}
	}
}

// runHubCreds issues a key for one root and role into the hub's data
// directory and writes its seed to --out.
func (a *app) runHubCreds(c *cobra.Command, o hubCredsFlags) error {
	if o.rootID == "" {
		return a.usage(c, a.t("hub.cli.creds.error.root_id_missing"))
	}
	root, err := naming.ForRoot(o.rootID)
	if err != nil {
		return a.usage(c, a.t("hub.cli.creds.error.root_id", "ID", o.rootID))
	}
	role, err := hub.ParseRole(o.role)
	if err != nil {
		return a.usage(c, a.t("hub.cli.creds.error.role", "Role", o.role))
	}
	out := o.out
	if out == "" {
		out = "daokit-" + root.ID() + "-" + string(role) + ".nk"
	}
	dir := a.hubDataDir(o.data)
	u, err := hub.Issue(dir, root, role, out)
	var he *hub.Error
	if errors.As(err, &he) && he.Kind == hub.KindCredentials && he.Subject == out {
		return failf("E_HUB_FAILED", a.t("hub.cli.creds.error.out", "File", out, "Err", he.Err.Error()))
	}
	if err != nil {
		return a.hubError(c, err)
	}
	a.println(a.t("hub.cli.creds.issued", "Role", string(u.Role), "Root", u.Root, "File", out, "Key", u.PublicKey))
	a.println(a.t("hub.cli.creds.reload", "Dir", dir))
	return nil
}
