package main

import (
	"github.com/spf13/cobra"
)

// hubFlags are `daokit hub`'s options.
type hubFlags struct {
	listen, data       string
	tlsCert, tlsKey    string
	monitor            string
	anonymous, verbose bool
}

// Defaults of hub's addresses, both loopback: a hub reaches other hosts
// only when told to. They only word the help: daokit-hub applies its own
// (hub.DefaultListen and hub.DefaultMonitor; e2e checks they agree), as
// daokit never links the hub package (see hub_exec.go).
const (
	hubDefaultListen  = "127.0.0.1:4222"
	hubDefaultMonitor = "127.0.0.1:8222"
)

// newHubCmd is `daokit hub`: the embedded NATS JetStream server that
// roots on several hosts share (docs/deployment.en.md). daokit parses
// and checks its flags, so that its help and usage errors read like every
// other command's, then hands them to daokit-hub (hub_exec.go).
func newHubCmd(a *app) *cobra.Command {
	var o hubFlags
	c := a.command("hub", "hub.cli.summary", func(c *cobra.Command, _ []string) error { return a.runHub(c, o) })
	f := c.Flags()
	f.StringVar(&o.listen, "listen", hubDefaultListen, "hub.cli.flag.listen")
	f.StringVar(&o.data, "data", "", "hub.cli.flag.data")
	a.defaultText(f, "data", "hub.cli.flag.data_default")
	f.StringVar(&o.tlsCert, "tls-cert", "", "hub.cli.flag.tls_cert")
	f.StringVar(&o.tlsKey, "tls-key", "", "hub.cli.flag.tls_key")
	f.StringVar(&o.monitor, "monitor", hubDefaultMonitor, "hub.cli.flag.monitor")
	f.BoolVar(&o.anonymous, "anonymous", false, "hub.cli.flag.anonymous")
	f.BoolVar(&o.verbose, "verbose", false, "hub.cli.flag.verbose")
	c.AddCommand(newHubCredsCmd(a))
	return c
}
