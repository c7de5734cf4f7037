package main

import (
	"errors"
	"os"
	"strconv"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/spf13/cobra"
)

// takeoverFlags are takeover's options.
type takeoverFlags struct {
	root, taskID, runID, thread string
	pid, ttl                    int
}

func newTakeoverCmd(a *app) *cobra.Command {
	var o takeoverFlags
	c := a.command("takeover", "cli.takeover.summary", nil)
	f := c.Flags()
	f.StringVar(&o.root, "root", ".", "cli.flag.root")
	f.StringVar(&o.taskID, "task-id", "", "cli.takeover.flag.task_id")
	f.StringVar(&o.runID, "run-id", "", "cli.takeover.flag.run_id")
	f.StringVar(&o.thread, "successor-thread-id", "", "cli.takeover.flag.thread")
	f.IntVar(&o.pid, "successor-pid", 0, "cli.takeover.flag.pid")
	f.IntVar(&o.ttl, "lease-ttl", 0, "cli.takeover.flag.ttl")
	a.defaultText(f, "task-id", "cli.takeover.default.pipeline")
	a.defaultText(f, "run-id", "cli.takeover.default.pipeline")
	a.defaultText(f, "successor-thread-id", "cli.takeover.default.thread")
	a.defaultText(f, "successor-pid", "cli.takeover.default.pid")
	a.defaultText(f, "lease-ttl", "cli.takeover.default.ttl")
	c.RunE = func(c *cobra.Command, _ []string) error {
		if !c.Flags().Changed("successor-thread-id") {
			o.thread = "takeover-" + strconv.Itoa(os.Getpid())
		}
		if !c.Flags().Changed("successor-pid") {
			o.pid = os.Getpid()
		}
		return a.runTakeover(o)
	}
	return c
}

func (a *app) runTakeover(o takeoverFlags) error {
	dir, err := absRoot(o.root)
	if err != nil {
		return failf("E_TAKEOVER_FAILED", err.Error())
	}
	// A live controller is the ledger's only writer: it carries the
	// takeover out, and the CLI only reads the ledger for the defaults.
	ctl := liveController(dir)
	var store *ledger.Store
	if ctl.Live() {
		if err := a.forwardable(dir, "E_TAKEOVER_FAILED"); err != nil {
			return err
		}
	} else {
		if store, err = a.openWriter(dir, "E_TAKEOVER_FAILED"); err != nil {
			return err
		}
		defer store.Close()
	}
	p, leases, err := a.loadPipeline(dir, "E_TAKEOVER_FAILED")
	if err != nil {
		return err
	}
	if o.taskID == "" {
		o.taskID = p.TaskID
	}
	if o.runID == "" {
		o.runID = p.RunID
	}
	switch {
	case o.taskID == "":
		return failf("E_TAKEOVER_FAILED", a.t("cli.takeover.error.no_task"))
	case o.runID == "":
		return failf("E_TAKEOVER_FAILED", a.t("cli.takeover.error.no_run"))
	case o.ttl < 0:
		return failf("E_TAKEOVER_FAILED", a.t("cli.takeover.error.ttl"))
	}
	if store == nil {
		return a.forward(dir, "E_TAKEOVER_FAILED", ctl, relay.Operation{Kind: relay.OperateTakeover,
			TaskID: o.taskID, RunID: o.runID, SuccessorThreadID: o.thread, SuccessorPID: o.pid, LeaseTTL: o.ttl})
	}
	now := time.Now()
	t, err := heal.PlanTakeover(&p, &leases, heal.TakeoverSpec{
		TaskID: o.taskID, RunID: o.runID, Reason: vocab.ReasonManualTakeover,
		Successor: heal.Holder{ThreadID: o.thread, PID: o.pid}, TTL: time.Duration(o.ttl) * time.Second,
	}, now)
	var le *heal.LeaseError
	if errors.As(err, &le) {
		return failf("E_TAKEOVER_FAILED", a.t("cli.takeover.error.bad_field", "Field", le.Field))
	}
	if err != nil {
		return failf("E_TAKEOVER_FAILED", err.Error())
	}
	if err := store.Commit(t.Changes(&p, &leases, store.Layout().Handoff())); err != nil {
		return failf("E_TAKEOVER_FAILED", a.commitProblem(err))
	}
	return a.writeJSON(t.Object())
}
