package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	if err := a.checkLayout(layout); err != nil {
		return err
	}
	snap := ledger.LoadSnapshot(dir)
	docsErr := a.checkDocuments(layout, snap)
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
	}
	if docsErr != nil {
		return docsErr
	}
	p, hb, leases := snap.Pipeline.Value, snap.Heartbeat.Value, snap.Leases.Value
	th := a.thresholds(cf, hb)
	if err := th.Validate(); err != nil {
		return failf("E_CHECK_HEARTBEAT_INVALID", a.thresholdProblem(err))
	}
	if hb.LastHeartbeatAt != "" {
		if _, err = ledger.ParseTime(hb.LastHeartbeatAt); err != nil {
			return failf("E_CHECK_HEARTBEAT_INVALID", a.t("cli.check.error.heartbeat_time", "Value", hb.LastHeartbeatAt))
		}
	}
	a.checkEvents(layout)
	if _, err := os.Lstat(layout.Path(ledger.JournalFile)); err == nil {
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

// checkLayout requires the four contract files as regular files.
func (a *app) checkLayout(l ledger.Layout) error {
	for _, name := range ledger.StateFiles() {
		rel := filepath.Join(ledger.StateDir, name)
		st, err := os.Lstat(l.Path(name)) // a link is not a ledger file
		switch {
		case err != nil:
			return failf("E_CHECK_LAYOUT_MISSING", a.t("cli.check.error.missing_file", "Path", rel))
		case !st.Mode().IsRegular():
			return failf("E_CHECK_LAYOUT_MISSING", a.t("cli.check.error.not_a_file", "Path", rel))
		}
	}
	return nil
}

// checkDocuments reports every load and contract problem, one line each.
// Fields outside the contract are notes, not failures: the Python tool
// writes some, and reading keeps them.
func (a *app) checkDocuments(l ledger.Layout, s ledger.Snapshot) error {
	failed := false
	report := func(path string, loadErr, schemaErr error) {
		if ps := ledger.Problems(loadErr); path == l.Heartbeat() && len(ps) == 1 && ps[0].Path == "$.last_heartbeat_at" {
			failed = true
			fmt.Fprintln(a.io.err, "E_CHECK_HEARTBEAT_INVALID: "+a.t("cli.check.error.heartbeat_string"))
			return
		}
		if loadErr != nil {
			failed = true
			fmt.Fprintln(a.io.err, "E_CHECK_STATE_INVALID: "+a.fileProblem(path, loadErr))
			return
		}
		for _, p := range ledger.Problems(schemaErr) {
			if path == l.Heartbeat() && p.Path == "$.last_heartbeat_at" {
				continue // judged below with the Python tool's code
			}
			// The Python tool's own handoff --apply writes empty
			// role_lifecycle values (handoff_skipped_steps ""), against
			// its contract's minLength; it reads them back, so they are
			// kept as written like its extra fields.
			// Its LLM mode stores an object in
			// role_lifecycle.analysis_result and reads it back the
			// same way: such a value is kept as written too.
			lifecycle := path == l.Pipeline() && strings.HasPrefix(p.Path, "$.role_lifecycle.")
			pythonEmpty := lifecycle && p.Code == ledger.ProblemEmpty
			pythonObject := lifecycle && p.Code == ledger.ProblemType
			if p.Code == ledger.ProblemUnknownField || pythonEmpty || pythonObject {
				fmt.Fprintln(a.io.err, a.t("cli.check.note_extra_field", "Path", path, "Field", a.where(p.Path)))
				continue
			}
			failed = true
			fmt.Fprintln(a.io.err, "E_CHECK_STATE_INVALID: "+a.t("cli.file.invalid", "Path", path, "Reason", a.problem(p)))
		}
	}
	report(l.Pipeline(), s.Pipeline.Err, s.Pipeline.Schema)
	report(l.Heartbeat(), s.Heartbeat.Err, s.Heartbeat.Schema)
	report(l.Leases(), s.Leases.Err, s.Leases.Schema)
	if failed {
		return &exitError{code: exitFailure}
	}
	return nil
}

// checkEvents validates the newest events and notes unreadable lines.
func (a *app) checkEvents(l ledger.Layout) {
	tail, err := ledger.TailEvents(l.Events(), checkedEventLines)
	if err != nil {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_events", "Reason", a.fileProblem(l.Events(), err)))
		return
	}
	if tail.Skipped > 0 {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_bad_lines", "Count", tail.Skipped, "Lines", checkedEventLines, "Path", l.Events()))
	}
	outside := 0
	for i := range tail.Events {
		if tail.Events[i].Validate() != nil {
			outside++
		}
	}
	if outside > 0 {
		fmt.Fprintln(a.io.err, a.t("cli.check.note_outside_contract", "Count", outside, "Path", l.Events()))
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
