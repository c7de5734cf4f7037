package main

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker"
	"github.com/spf13/cobra"
)

// newLogsCmd is "daokit logs": what a worker printed, from the logs it
// wrote itself. A controller step is named by --task-id/--run-id/--step-id
// (default: the current run's current step); a Lead's Worker by --role
// and --issue (default: its latest attempt).
func newLogsCmd(a *app) *cobra.Command {
	c := quickRead(a.command("logs", "cli.logs.summary", nil))
	f := c.Flags()
	root := rootFlag(f)
	taskID := f.String("task-id", "", "cli.diff.flag.task_id")
	runID := f.String("run-id", "", "cli.diff.flag.run_id")
	stepID := f.String("step-id", "", "cli.logs.flag.step_id")
	role := f.String("role", "", "cli.logs.flag.role")
	issue := f.Int64("issue", 0, "cli.logs.flag.issue")
	attempt := f.Int("attempt", 0, "cli.logs.flag.attempt")
	stderr := f.Bool("stderr", false, "cli.logs.flag.stderr")
	a.defaultText(f, "task-id", "cli.status.default.task_id")
	a.defaultText(f, "run-id", "cli.status.default.run_id")
	a.defaultText(f, "step-id", "cli.logs.default.step_id")
	a.defaultText(f, "attempt", "cli.logs.default.attempt")
	c.RunE = func(c *cobra.Command, _ []string) error {
		name := worker.StdoutLog
		if *stderr {
			name = worker.StderrLog
		}
		if *role != "" || *issue != 0 {
			if *role == "" || *issue <= 0 {
				return a.usage(c, a.t("cli.logs.error.role_issue"))
			}
			return a.workerLog(*root, *role, *issue, *attempt, *stepID, name)
		}
		if err := a.checkIDFlags(c, "--task-id", *taskID, "--run-id", *runID, "--step-id", *stepID); err != nil {
			return err
		}
		return a.stepLog(*root, *taskID, *runID, *stepID, name)
	}
	return c
}

// stepLog prints a controller step's log.
func (a *app) stepLog(root, taskID, runID, stepID, name string) error {
	dir, err := absRoot(root)
	if err != nil {
		return failf("E_LOGS", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_LOGS", err.Error())
	}
	if snap := ledger.LoadSnapshot(dir); snap.Pipeline.OK() {
		p := snap.Pipeline.Value
		if taskID == "" && runID == "" {
			taskID, runID = p.TaskID, p.RunID
		}
		if stepID == "" && taskID == p.TaskID && runID == p.RunID {
			stepID = p.CurrentStep
		}
	}
	what := orNone(taskID) + "/" + orNone(runID) + "/" + orNone(stepID)
	art, err := ledger.Layout{Root: dir}.ArtifactDir(taskID, runID, stepID)
	if err != nil || taskID == "" || runID == "" || stepID == "" {
		return failf("E_LOGS", a.t("cli.logs.none", "What", what))
	}
	return a.printLog(filepath.Join(art, name), what)
}

// workerLog prints the log of a Lead's Worker attempt (the latest when
// attempt is 0); for a role's loop, of the attempt's step stepID (the
// step that wrote last when "").
func (a *app) workerLog(root, role string, issue int64, attempt int, stepID, name string) error {
	env, err := a.loadTeam(root, "")
	if err != nil {
		return err
	}
	if _, ok := env.wf.Roles[role]; !ok {
		return failf("E_LOGS", a.t("cli.outbox.error.role", "Role", role))
	}
	dir := roster.StatusDir(env.wf)
	what := role + " #" + strconv.FormatInt(issue, 10)
	if attempt <= 0 {
		atts, err := roster.Attempts(dir, role, issue)
		if err != nil {
			return failf("E_LOGS", err.Error())
		}
		if len(atts) == 0 {
			return failf("E_LOGS", a.t("cli.logs.none", "What", what))
		}
		attempt = atts[len(atts)-1]
	}
	what += " " + a.t("cli.logs.attempt", "Attempt", attempt)
	adir := roster.AttemptDir(dir, role, issue, attempt)
	if stepID == "" {
		// A loop's attempt: the step that wrote last.
		stepID = roster.LatestLoopStep(adir)
	}
	if stepID != "" {
		if !roster.ValidLoopStep(stepID) {
			return failf("E_LOGS", a.t("cli.logs.none", "What", what+" "+stepID))
		}
		what += " " + stepID
		adir = filepath.Join(adir, stepID)
	}
	return a.printLog(filepath.Join(adir, name), what)
}

// printLog writes the bytes a log keeps (past a head cut to keep it
// within its limit); the output guard neutralizes escapes on a terminal.
func (a *app) printLog(path, what string) error {
	data, _, err := worker.ReadLog(path)
	if errors.Is(err, fs.ErrNotExist) {
		return failf("E_LOGS", a.t("cli.logs.none", "What", what))
	}
	if err != nil {
		return failf("E_LOGS", err.Error())
	}
	_, err = a.io.out.Write(data)
	return err
}
