package main

import (
	"strconv"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/spf13/cobra"
)

// runLeaseFlags are the Python tool's lease options of run. Their
// defaults mean what daokit's controller does anyway (the controller
// lane, a run from its first step S1, a lease held); a value that asks
// for something else is refused by name rather than silently ignored.
type runLeaseFlags struct {
	stepID, lane, threadID *string
	leaseTTL               *int
	noLease                *bool
}

func addRunLeaseFlags(c *cobra.Command) runLeaseFlags {
	f := c.Flags()
	return runLeaseFlags{
		stepID:   f.String("step-id", "S1", "cli.run.flag.step_id"),
		lane:     f.String("lane", "default", "cli.run.flag.lane"),
		threadID: f.String("thread-id", "", "cli.run.flag.thread_id"),
		leaseTTL: f.Int("lease-ttl", 1200, "cli.run.flag.lease_ttl"),
		noLease:  f.Bool("no-lease", false, "cli.run.flag.no_lease"),
	}
}

// describeRunLeaseFlags shows the TTL a run's lease really gets where
// the flag's default (Python's 1200) would mislead.
func (a *app) describeRunLeaseFlags(c *cobra.Command) {
	a.defaultText(c.Flags(), "lease-ttl", "cli.run.default.lease_ttl")
}

// check refuses the options daokit cannot honour. --lease-ttl is
// honoured when it is the TTL the root's daokit.toml gives the
// controller's leases ([lease] ttl); a root whose configuration does not
// load leaves that to the run, which reports it.
func (a *app) checkRunLeaseFlags(c *cobra.Command, rf runLeaseFlags, root string) error {
	set := c.Flags().Changed
	refuse := func(flag, value, why string) error {
		return a.usage(c, a.t("cli.run.error.flag_refused", "Flag", flag, "Value", value, "Why", why))
	}
	switch {
	case set("step-id") && *rf.stepID != "S1":
		return refuse("--step-id", *rf.stepID, a.t("cli.run.refuse.step_id"))
	case set("lane") && *rf.lane != "default" && *rf.lane != "controller":
		return refuse("--lane", *rf.lane, a.t("cli.run.refuse.lane"))
	case set("thread-id"):
		return refuse("--thread-id", *rf.threadID, a.t("cli.run.refuse.thread_id"))
	case set("no-lease") && *rf.noLease:
		return refuse("--no-lease", "", a.t("cli.run.refuse.no_lease"))
	}
	if !set("lease-ttl") {
		return nil
	}
	ttl := config.DefaultConfig().Lease.TTL.Std()
	if dir, err := absRoot(root); err == nil {
		if cfg, err := config.Load(dir); err == nil {
			ttl = cfg.Lease.TTL.Std()
		}
	}
	if time.Duration(*rf.leaseTTL)*time.Second != ttl {
		return refuse("--lease-ttl", strconv.Itoa(*rf.leaseTTL), a.t("cli.run.refuse.lease_ttl", "TTL", int(ttl/time.Second)))
	}
	return nil
}
