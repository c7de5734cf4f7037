package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/naming"
	"github.com/spf13/pflag"
)

// remoteFlags name a root on a hub, for a person on another host than
// the root's leader: `send`, `status`, `watch`, `replay` and the window
// take them (docs/deployment).
type remoteFlags struct {
	hub, rootID, credentials string
}

// addRemoteFlags adds --hub, --root-id and --credentials to f.
func (a *app) addRemoteFlags(f *pflag.FlagSet, o *remoteFlags) {
	f.StringVar(&o.hub, "hub", "", "remote.cli.flag.hub")
	f.StringVar(&o.rootID, "root-id", "", "remote.cli.flag.root_id")
	f.StringVar(&o.credentials, "credentials", "", "remote.cli.flag.credentials")
	for _, name := range []string{"hub", "root-id", "credentials"} {
		_ = f.SetAnnotation(name, exactOnly, []string{"true"})
	}
}

// on reports whether the command is asked to reach a root on a hub.
func (o remoteFlags) on() bool { return o.hub != "" || o.rootID != "" }

// names checks the flags and returns the root's names on the hub.
func (a *app) remoteRoot(o remoteFlags) (naming.Root, error) {
	if o.hub == "" || o.rootID == "" {
		return naming.Root{}, usageError(a.t("remote.cli.error.both"))
	}
	names, err := naming.ForRoot(o.rootID)
	if err != nil {
		return naming.Root{}, usageError(a.t("remote.cli.error.root_id", "Err", err.Error()))
	}
	return names, nil
}

// options are the flags' hub options for command's connections, named
// in the hub's monitoring after the command and the root.
func (o remoteFlags) options(command string) hubconn.Options {
	return hubconn.Options{URL: o.hub, Credentials: o.credentials, Name: strings.Join([]string{"daokit", command, o.rootID}, " ")}
}

// remoteHubWait bounds how long a command waits for a hub that is down
// or unreachable: a hub restarting is back within it, a hub that is gone
// is reported rather than waited for forever.
const remoteHubWait = 30 * time.Second

// dialHub connects to the hub the flags name, as this command. A hub that
// is down is waited for (up to remoteHubWait, or until Ctrl-C), the
// person told once on stderr what the command waits for.
func (a *app) dialHub(o remoteFlags, command string) (*hubconn.Conn, error) {
	ctx, cancel := context.WithTimeout(a.ctx, remoteHubWait)
	defer cancel()
	c, err := hubconn.DialWait(ctx, o.options(command), func(err error) {
		fmt.Fprintln(a.io.err, a.t("remote.cli.waiting", "URL", o.hub, "Err", err.Error(), "Wait", remoteHubWait))
	})
	if err != nil && a.ctx.Err() != nil {
		return nil, a.ctx.Err() // Ctrl-C while waiting: E_INTERRUPTED
	}
	if err != nil {
		return nil, failf("E_HUB_UNREACHABLE", a.t("remote.cli.error.dial", "URL", o.hub, "Err", err.Error()))
	}
	return c, nil
}
