package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

func newDiffCmd(a *app) *cobra.Command {
	c := quickRead(a.command("diff", "cli.diff.summary", nil))
	f := c.Flags()
	root := rootFlag(f)
	taskID := f.String("task-id", "", "cli.diff.flag.task_id")
	runID := f.String("run-id", "", "cli.diff.flag.run_id")
	stepID := f.String("step-id", "", "cli.diff.flag.step_id")
	stat := f.Bool("stat", false, "cli.diff.flag.stat")
	a.defaultText(f, "task-id", "cli.status.default.task_id")
	a.defaultText(f, "run-id", "cli.status.default.run_id")
	a.defaultText(f, "step-id", "cli.diff.default.step_id")
	c.RunE = func(c *cobra.Command, _ []string) error {
		if err := a.checkIDFlags(c, "--task-id", *taskID, "--run-id", *runID, "--step-id", *stepID); err != nil {
			return err
		}
		return a.runDiff(*root, *taskID, *runID, *stepID, *stat)
	}
	return c
}

// runDiff prints what a step changed: live (committed and uncommitted)
// while its worktree exists, else its branch against its base.
func (a *app) runDiff(root, taskID, runID, stepID string, stat bool) error {
	dir, err := absRoot(root)
	if err != nil {
		return failf("E_DIFF_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_DIFF_FAILED", err.Error())
	}
	trees, err := controller.RecordedTrees(dir)
	if err != nil {
		return failf("E_DIFF_FAILED", a.fileProblem(ledger.Layout{Root: dir}.Events(), err))
	}
	if taskID == "" && runID == "" {
		if snap := ledger.LoadSnapshot(dir); snap.Pipeline.OK() {
			taskID, runID = snap.Pipeline.Value.TaskID, snap.Pipeline.Value.RunID
		}
	}
	t, ok := pickTree(trees, taskID, runID, stepID)
	if !ok {
		return failf("E_DIFF_FAILED", a.t("cli.diff.none", "Step", orNone(taskID)+"/"+orNone(runID)+"/"+orNone(stepID)))
	}
	data, err := stepDiff(a, t)
	if err != nil {
		return failf("E_DIFF_FAILED", a.t("cli.diff.git_failed", "Reason", err.Error()))
	}
	if !stat {
		_, err := a.io.out.Write(data)
		return err
	}
	a.printStat(gitwork.Stats(gitwork.Parse(data)))
	return nil
}

// pickTree returns the latest recorded worktree matching the ids (an
// empty id matches any).
func pickTree(trees []controller.StepTree, taskID, runID, stepID string) (controller.StepTree, bool) {
	for i := len(trees) - 1; i >= 0; i-- {
		t := trees[i]
		if (taskID == "" || t.TaskID == taskID) && (runID == "" || t.RunID == runID) && (stepID == "" || t.StepID == stepID) {
			return t, true
		}
	}
	return controller.StepTree{}, false
}

// stepDiff reads the step's diff from git.
func stepDiff(a *app, t controller.StepTree) ([]byte, error) {
	if _, err := os.Stat(t.Path); err == nil {
		return gitwork.DiffWorktree(a.ctx, t.Path, t.Base)
	}
	return (&gitwork.Repo{Top: t.Repo}).DiffBranch(a.ctx, t.Base, t.Branch)
}

// printStat prints one row per file (+added −removed) and a total.
func (a *app) printStat(stats []gitwork.Stat) {
	rows := make([][]string, 0, len(stats))
	added, removed := 0, 0
	for _, s := range stats {
		counts := "+" + strconv.Itoa(s.Added) + " -" + strconv.Itoa(s.Removed)
		if s.Binary {
			counts = a.t("cli.diff.binary")
		}
		rows = append(rows, []string{s.Path, counts})
		added, removed = added+s.Added, removed+s.Removed
	}
	writeTable(a.io.out, "", []string{a.t("cli.diff.col.file"), a.t("cli.diff.col.lines")}, rows)
	fmt.Fprintln(a.io.out, a.t("cli.diff.total", "Files", len(stats), "Added", added, "Removed", removed))
}
