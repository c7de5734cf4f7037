package main

import (
	"github.com/spf13/cobra"
)

// hubCredsFlags are `daokit hub creds`'s options.
type hubCredsFlags struct {
	data, rootID, role, out string
}

// newHubCredsCmd is `daokit hub creds`: a key for one root and one role
// (leader, agent, reader) that the hub enforces, so that an agent host
// cannot write its root's ledger nor touch another root
// (docs/deployment.en.md, "Securing it").
func newHubCredsCmd(a *app) *cobra.Command {
	var o hubCredsFlags
	c := a.command("creds", "hub.cli.creds.summary", func(c *cobra.Command, _ []string) error { return a.runHubCreds(c, o) })
	f := c.Flags()
	f.StringVar(&o.data, "data", "", "hub.cli.flag.data")
	a.defaultText(f, "data", "hub.cli.flag.data_default")
	f.StringVar(&o.rootID, "root-id", "", "hub.cli.creds.flag.root_id")
	f.StringVar(&o.role, "role", "agent", "hub.cli.creds.flag.role")
	f.StringVar(&o.out, "out", "", "hub.cli.creds.flag.out")
	a.defaultText(f, "out", "hub.cli.creds.flag.out_default")
	return c
}
