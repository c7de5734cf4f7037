package controller

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/workflow"
)

// opOrphansKilled records that a starting controller killed processes an
// earlier controller of the root left running (payload: killed).
const opOrphansKilled = string(vocab.OpOrphansKilled)

// sweepOrphans kills what a previous controller of this root left
// running: the cgroups and marked processes of its steps (an agent's own
// tool process groups, re-parented to PID 1 when it was SIGKILLed), so
// that no step of the old controller works on beside the resumed one.
func (c *Controller) sweepOrphans() {
	// How this host lets us kill a child's whole tree: an operator reads
	// it in controller.log when an agent's tool outlived its step.
	c.log.Info("child process trees", "tracking", proc.Tracking())
	if n := c.procs.Sweep(); n > 0 {
		c.log.Warn("killed processes a previous controller left", "killed", n)
		c.note(c.events.system(globalID, globalID, "", ledger.SeverityWarn, opOrphansKilled, "killed", n))
	}
}

// stepEnv is the environment of every process started for step (its
// agent, the judge, the hooks): which root, task, run, step, iteration
// and worktree it works for. Called on the state loop.
func (c *Controller) stepEnv(r *run, step string, role workflow.Role, iteration int, worktree string) []string {
	p := &r.pipeline
	env := []string{"DAOKIT_ROOT=" + c.opts.Root, "DAOKIT_TASK_ID=" + p.TaskID, "DAOKIT_RUN_ID=" + p.RunID,
		"DAOKIT_STEP_ID=" + step, "DAOKIT_ROLE=" + string(role), "DAOKIT_ITERATION=" + strconv.Itoa(iteration)}
	if worktree != "" {
		env = append(env, worker.EnvWorktree+"="+worktree)
	}
	return env
}

// stepContext is ctx for the processes of step: labelled with it, with
// its environment. Called on the state loop.
func (c *Controller) stepContext(ctx context.Context, r *run, step string, tree *stepTree) context.Context {
	wt := ""
	if tree != nil {
		wt = tree.wt.Path
	}
	return proc.WithStep(ctx, step, c.stepEnv(r, step, r.role, r.iteration, wt)...)
}

// worktreeJudge is a loop's command judge: each round it runs in the
// run's worktree (where the coder's change is), with the step's
// environment, and through the process runtime that kills its whole tree
// at its end.
type worktreeJudge struct {
	c    *Controller
	r    *run
	base workflow.CommandJudge
}

// Kind implements workflow.Judge.
func (j worktreeJudge) Kind() string { return j.base.Kind() }

// Decide implements workflow.Judge.
func (j worktreeJudge) Decide(ctx context.Context, round workflow.Round) (workflow.JudgeDecision, error) {
	c := j.c
	var lc ledger.Lifecycle
	var tree, top string
	var env []string
	c.do(func(*loopState) {
		lc = j.r.pipeline.RoleLifecycle
		tree, top = lc.Get(keyTreePath+runTreeKey), lc.Get(keyTreeRepo+runTreeKey)
		env = c.stepEnv(j.r, round.StepID, workflow.RoleJudge, round.Iteration, tree)
	})
	cmd := j.base
	// The judge runs code the agent wrote (its tests): no GitHub token.
	cmd.BaseEnv = outbox.WithoutSecrets(os.Environ())
	if tree != "" {
		cmd.Dir = inTree(c.opts.Root, top, tree)
	}
	return cmd.Decide(proc.WithStep(ctx, round.StepID, env...), round)
}

// inTree returns the folder of the worktree at tree that stands for dir
// of the repository whose top is top: the judge runs where it would in
// the person's checkout. A dir outside the repository maps to the
// worktree's top.
func inTree(dir, top, tree string) string {
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return tree
	}
	return filepath.Join(tree, rel)
}
