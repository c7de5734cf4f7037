package main

import (
	"errors"
	"os"
	"strconv"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
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
	store, err := a.openWriter(dir, "E_TAKEOVER_FAILED")
	if err != nil {
		return err
	}
	defer store.Close()
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
	now := time.Now()
	res, err := heal.TakeOver(&leases, o.taskID, o.runID, heal.Holder{ThreadID: o.thread, PID: o.pid}, time.Duration(o.ttl)*time.Second, now)
	var le *heal.LeaseError
	if errors.As(err, &le) {
		return failf("E_TAKEOVER_FAILED", a.t("cli.takeover.error.bad_field", "Field", le.Field))
	}
	if err != nil {
		return failf("E_TAKEOVER_FAILED", err.Error())
	}
	if err := a.recordTakeover(store, &p, leases, res, o.taskID, o.runID, now); err != nil {
		return failf("E_TAKEOVER_FAILED", a.commitProblem(err))
	}
	return a.writeJSON(ledger.ObjectOf("task_id", o.taskID, "run_id", o.runID, "takeover_at", ledger.FormatTime(now),
		"adopted_step_ids", nonNilStrings(res.AdoptedSteps()), "failed_step_ids", nonNilStrings(res.FailedSteps)))
}

// recordTakeover commits the leases, the pipeline's succession data
// (never renaming its task or run, unlike the Python tool) and the
// events together: all of them are written, or none.
func (a *app) recordTakeover(store *ledger.Store, p *ledger.PipelineState, leases ledger.Leases, res heal.TakeoverResult, taskID, runID string, now time.Time) error {
	changes := ledger.Changes{Leases: &leases}
	at := ledger.FormatTime(now)
	if p.TaskID == taskID && p.RunID == runID {
		p.Succession.LastTakeoverAt = at
		for _, l := range res.Adopted {
			heal.SyncLifecycle(p, l)
		}
		for _, s := range res.FailedSteps {
			p.RoleLifecycle = p.RoleLifecycle.With("step:"+s, string(vocab.StepFailedNonAdopted))
		}
		changes.Pipeline = p
	}
	e := ledger.NewEvent(now, taskID, runID, "", ledger.EventLeaseTakeover, ledger.SeverityInfo, ledger.ObjectOf(
		"takeover_at", at, "adopted_step_ids", nonNilStrings(res.AdoptedSteps()), "failed_step_ids", nonNilStrings(res.FailedSteps),
		"reason_code", string(vocab.ReasonManualTakeover), "superseded_tokens", nonNilStrings(res.Superseded)))
	e.DedupKey = "succession:" + taskID + ":" + runID + ":" + at
	events := []ledger.Event{e}
	for _, s := range res.AdoptedSteps() {
		adopted := ledger.NewEvent(now, taskID, runID, s, ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf(
			"operation", string(vocab.OpLeaseAdopted), "reason_code", string(vocab.ReasonLeaseAdopted), "takeover_at", at))
		adopted.DedupKey = "lease-adopted:" + taskID + ":" + runID + ":" + s + ":" + at
		events = append(events, adopted)
	}
	for _, s := range res.FailedSteps {
		failed := ledger.NewEvent(now, taskID, runID, s, ledger.EventStepFailed, ledger.SeverityError, ledger.ObjectOf(
			"reason_code", string(vocab.ReasonLeaseNotAdopted), "takeover_at", at))
		failed.DedupKey = "step-failed:" + taskID + ":" + runID + ":" + s + ":" + at
		events = append(events, failed)
	}
	changes.Events = events
	changes.Node = ledger.NodeSuccessionTakeover
	return store.Commit(changes)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
