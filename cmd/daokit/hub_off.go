//go:build nohub

package main

import "github.com/spf13/cobra"

// runHub in a build without the hub (-tags nohub: agent hosts and
// windows, about 20 MB smaller) says so, and where to get one.
func (a *app) runHub(*cobra.Command, hubFlags) error {
	return failf("E_HUB_UNAVAILABLE", a.t("hub.cli.error.not_built"))
}

// runHubCreds in a build without the hub: keys are issued on the hub's
// host, by a build that has it.
func (a *app) runHubCreds(*cobra.Command, hubCredsFlags) error {
	return failf("E_HUB_UNAVAILABLE", a.t("hub.cli.error.not_built"))
}
