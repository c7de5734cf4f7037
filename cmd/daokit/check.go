package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/spf13/cobra"
)

// checkedEventLines is how many of the newest events check validates: the
// check must stay fast on a ledger of any size.
const checkedEventLines = 100

type checkFlags struct {
	root, artifactRoot                   *string
	checkInterval, warningAfter, staleAf *int
	asJSON, offline                      *bool
	set                                  func(name string) bool
}

func newCheckCmd(a *app) *cobra.Command {
	c := quickRead(a.command("check", "cli.check.summary", nil))
	f := c.Flags()
	cf := checkFlags{
		root:          rootFlag(f),
		artifactRoot:  f.String("artifact-root", "artifacts", "cli.check.flag.artifact_root"),
		checkInterval: f.Int("check-interval", 300, "cli.check.flag.check_interval"),
		warningAfter:  f.Int("warning-after", 900, "cli.check.flag.warning_after"),
		staleAf:       f.Int("stale-after", 1200, "cli.check.flag.stale_after"),
		asJSON:        f.Bool("json", false, "cli.flag.json"),
		offline:       f.Bool("offline", false, "cli.check.flag.offline"),
		set:           f.Changed,
	}
	a.defaultText(f, "warning-after", "cli.check.default.from_ledger")
	a.defaultText(f, "stale-after", "cli.check.default.from_ledger")
	c.RunE = func(*cobra.Command, []string) error { return a.runCheck(cf) }
	return c
}

func (a *app) runCheck(cf checkFlags) error {
	dir, err := absRoot(*cf.root)
	if err != nil {
		return failf("E_CHECK_LAYOUT_MISSING", err.Error())
	}
	if err := requireRoot(a, dir); err != nil {
		return failf("E_CHECK_LAYOUT_MISSING", err.Error())
	}
	layout := ledger.Layout{Root: dir}
	if rel, notAFile := ledger.CheckLayout(layout); rel != "" {
		key := "cli.check.error.missing_file"
		if notAFile {
			key = "cli.check.error.not_a_file"
		}
		return failf("E_CHECK_LAYOUT_MISSING", a.t(key, "Path", rel))
	}
	report := ledger.Check(layout, checkedEventLines)
	docsErr := a.printFindings(report.Findings)
	// daokit.toml is part of a daokit root: its problems are listed too,
	// after the state files', and fail the check as they would fail the
	// controller.
	if cfg, err := a.loadConfig(dir); err != nil {
		fmt.Fprintln(a.io.err, err.Error())
		docsErr = &exitError{code: exitFailure}
	} else if !a.checkTeam(dir, cfg, *cf.offline) {
		// So is the team's workflow.toml and outbox: a broken one
		// turns the team off, which the check must not call PASS.
		docsErr = &exitError{code: exitFailure}
	} else if !a.checkHub(dir, cfg, *cf.offline) {
		docsErr = &exitError{code: exitFailure}
	}
	if docsErr != nil {
		return docsErr
	}
	snap := report.Snapshot
	p, hb, leases := snap.Pipeline.Value, snap.Heartbeat.Value, snap.Leases.Value
	th := a.thresholds(cf, hb)
	if err := th.Validate(); err != nil {
		return failf("E_CHECK_HEARTBEAT_INVALID", a.thresholdProblem(err))
	}
	if report.HeartbeatTime != "" {
		return failf("E_CHECK_HEARTBEAT_INVALID", a.t("cli.check.error.heartbeat_time", "Value", report.HeartbeatTime))
	}
	a.printEventNotes(layout, &report)
	if report.Journal {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_journal", "Path", layout.Path(ledger.JournalFile)))
	}
	now := time.Now()
	artifacts := *cf.artifactRoot
	if !filepath.IsAbs(artifacts) {
		artifacts = filepath.Join(dir, artifacts)
	}
	health := liveness.JudgeLedger(now, th, &p, &hb, &leases, liveness.NewestOutput(artifacts, p.TaskID, p.RunID))
	verdict := "PASS"
	if health.Status == heal.HealthStale {
		verdict = "WARN"
	}
	if *cf.asJSON {
		var reason any
		if health.ReasonCode != "" {
			reason = health.ReasonCode
		}
		err = a.writeJSON(ledger.ObjectOf(
			"health", verdict,
			"pipeline_status", p.Status,
			"heartbeat", ledger.ObjectOf("status", health.Status, "reason_code", reason, "silence_seconds", health.Silence),
			"lease_count", len(leases.Leases),
		))
	} else {
		a.println(a.t("cli.check.health", "Verdict", verdict))
		a.printf("pipeline_status=%s\nheartbeat=%s silence_seconds=%d\nlease_count=%d\n", p.Status, health.Status, health.Silence, len(leases.Leases))
	}
	if err == nil && health.Status == heal.HealthStale {
		return &exitError{code: exitStale}
	}
	return err
}

// printFindings words ledger.Check's findings, one line each, and
// fails when one of them fails the check.
func (a *app) printFindings(findings []ledger.Finding) error {
	failed := false
	for _, f := range findings {
		switch {
		case f.Kind == ledger.FindingHeartbeatNotString:
			fmt.Fprintln(a.io.err, "E_CHECK_HEARTBEAT_INVALID: "+a.t("cli.check.error.heartbeat_string"))
		case f.Kind == ledger.FindingKept:
			fmt.Fprintln(a.io.err, a.t("cli.check.note_extra_field", "Path", f.Path, "Field", a.where(f.Problem.Path)))
			continue
		case f.Err != nil:
			fmt.Fprintln(a.io.err, "E_CHECK_STATE_INVALID: "+a.fileProblem(f.Path, f.Err))
		default:
			fmt.Fprintln(a.io.err, "E_CHECK_STATE_INVALID: "+a.t("cli.file.invalid", "Path", f.Path, "Reason", a.problem(f.Problem)))
		}
		failed = true
	}
	if failed {
		return &exitError{code: exitFailure}
	}
	return nil
}

// printEventNotes words what ledger.Check found in the newest events.
func (a *app) printEventNotes(l ledger.Layout, r *ledger.CheckReport) {
	if r.EventsErr != nil {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_events", "Reason", a.fileProblem(l.Events(), r.EventsErr)))
		return
	}
	if r.EventsSkipped > 0 {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_bad_lines", "Count", r.EventsSkipped, "Lines", r.EventsRead, "Path", l.Events()))
	}
	if r.EventsOutside > 0 {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_outside_contract", "Count", r.EventsOutside, "Path", l.Events()))
	}
}

// thresholds takes each limit from its flag when given, else from the
// heartbeat file the controller wrote, else the Python tool's default.
func (a *app) thresholds(cf checkFlags, hb ledger.HeartbeatStatus) heal.Thresholds {
	th := heal.Thresholds{CheckInterval: *cf.checkInterval, WarningAfter: *cf.warningAfter, StaleAfter: *cf.staleAf}
	if !cf.set("warning-after") && hb.WarningAfterSeconds > 0 {
		th.WarningAfter = hb.WarningAfterSeconds
	}
	if !cf.set("stale-after") && hb.StaleAfterSeconds > 0 {
		th.StaleAfter = hb.StaleAfterSeconds
	}
	// The controller writes thresholds of seconds (20, 45) that are
	// below the default check interval (300); only then is the interval
	// lowered to fit. Thresholds given as flags are validated as given,
	// like the Python tool does.
	if !cf.set("check-interval") && !cf.set("warning-after") {
		th.CheckInterval = min(th.CheckInterval, th.WarningAfter)
	}
	return th
}

func (a *app) thresholdProblem(err error) string {
	var te *heal.ThresholdError
	if errors.As(err, &te) {
		if te.Code == "order" {
			return a.t("cli.check.error.threshold_order", "Name", te.Name, "Other", te.Other)
		}
		return a.t("cli.check.error.threshold_positive", "Name", te.Name)
	}
	return err.Error()
}
