package main

import (
	"errors"
	"fmt"

	"github.com/daokit/daokit/hub/mirror"
	"github.com/spf13/cobra"
)

// mirrorFlags are `daokit mirror`'s options.
type mirrorFlags struct {
	hub, rootID, to, credentials string
}

// newMirrorCmd is `daokit mirror`: a read-only copy of a root on another
// host, rebuilt from the hub and kept current until stopped, for
// `daokit status`, `watch` and the window to read (docs/deployment).
// It needs only the hub's client, so a build without the hub has it.
func newMirrorCmd(a *app) *cobra.Command {
	var o mirrorFlags
	c := a.command("mirror", "mirror.cli.summary", func(*cobra.Command, []string) error { return a.runMirror(o) })
	f := c.Flags()
	f.StringVar(&o.hub, "hub", "", "mirror.cli.flag.hub")
	f.StringVar(&o.rootID, "root-id", "", "mirror.cli.flag.root_id")
	f.StringVar(&o.to, "to", "", "mirror.cli.flag.to")
	f.StringVar(&o.credentials, "credentials", "", "mirror.cli.flag.credentials")
	return c
}

func (a *app) runMirror(o mirrorFlags) error {
	if o.hub == "" || o.rootID == "" || o.to == "" {
		return usageError(a.t("mirror.cli.error.usage"))
	}
	dir, err := absRoot(o.to)
	if err != nil {
		return failf("E_MIRROR_FAILED", err.Error())
	}
	started := false
	err = mirror.Run(a.ctx, mirror.Options{
		Hub: mirror.Hub{URL: o.hub, Credentials: o.credentials}, Root: o.rootID, Dir: dir,
		Waiting: func(err error) {
			fmt.Fprintln(a.io.err, a.t("remote.cli.waiting_hub", "URL", o.hub, "Err", err.Error()))
		},
		Synced: func(seq uint64) {
			if !started {
				started = true
				a.println(a.t("mirror.cli.ready", "Root", o.rootID, "Dir", dir, "Sequence", seq))
			}
		},
	})
	switch {
	case err != nil && a.ctx.Err() != nil:
		return a.ctx.Err() // Ctrl-C while waiting for the hub: E_INTERRUPTED
	case errors.Is(err, mirror.ErrBusy):
		return failf("E_MIRROR_BUSY", a.t("mirror.cli.error.busy", "Dir", dir))
	case errors.Is(err, mirror.ErrNotThisRoot):
		return failf("E_MIRROR_NOT_THIS_ROOT", a.t("mirror.cli.error.not_this_root", "Dir", dir, "Root", o.rootID, "Reason", err.Error()))
	case err != nil:
		return failf("E_MIRROR_FAILED", err.Error())
	}
	return nil
}
