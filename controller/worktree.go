package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Operations of the worktree SYSTEM events.
const (
	// OpWorktreeReady: a step's worktree exists (payload: path, branch,
	// base, base_branch, repo, dir, reused).
	OpWorktreeReady = string(vocab.OpWorktreeReady)
	// opWorktreeSetup: the repository's set-up script ran, or was skipped
	// because the person has not allowed it (reason_code).
	opWorktreeSetup = string(vocab.OpWorktreeSetup)
	// OpWorktreeRemoved: an accepted step's worktree was removed; or kept
	// (kept = the reasons), when removing it would lose work.
	OpWorktreeRemoved = string(vocab.OpWorktreeRemoved)
	OpWorktreeKept    = string(vocab.OpWorktreeKept)
)

// WorktreesDir is the folder under the ledger root that holds the steps'
// worktrees: worktrees/<task>/<run>/<step>.
const WorktreesDir = "worktrees"

// Lifecycle keys (role_lifecycle) of a step's worktree, each followed by
// the step id. They let a successor controller find the worktree again.
const (
	keyTreePath       = "worktree:"
	keyTreeBranch     = "worktree_branch:"
	keyTreeBase       = "worktree_base:"
	keyTreeBaseBranch = "worktree_base_branch:"
	keyTreeRepo       = "worktree_repo:"
)

// stepTree is the worktree a step runs in.
type stepTree struct {
	repo *gitwork.Repo
	wt   gitwork.Worktree
	// dir is where the worker runs: the lane's folder inside the worktree.
	dir string
}

// errNoRepo is a lane that asks for a worktree outside a repository.
var errNoRepo = errors.New("isolation is worktree but the lane's folder is not in a git repository")

// isolated opens the repository of a lane whose steps run in worktrees,
// or returns nil for a lane that runs in its folder.
func (c *Controller) isolated(ctx context.Context, lane config.Lane) (*gitwork.Repo, error) {
	iso := c.cfg.IsolationOf(lane)
	if iso == config.IsolationNone || (iso == config.IsolationAuto && !lane.Kind.Agent()) {
		return nil, nil
	}
	repo, err := gitwork.Open(ctx, lane.WorkDir(c.opts.Root))
	if err != nil {
		if iso == config.IsolationAuto {
			return nil, nil
		}
		if errors.Is(err, gitwork.ErrNotRepo) {
			return nil, errNoRepo
		}
		return nil, err
	}
	return repo, nil
}

// prepareTree gives step its worktree: the one recorded for it (a
// successor controller reuses it, never makes a second), else a new one
// from the base branch. It records WORKTREE_READY and the lifecycle keys,
// and runs the repository's set-up script in a new worktree when the
// person allowed it.
func (c *Controller) prepareTree(ctx context.Context, r *run, step string, repo *gitwork.Repo) (*stepTree, error) {
	var p *ledger.PipelineState
	var taskID, runID, baseBranch string
	c.do(func(*loopState) {
		p = &r.pipeline
		taskID, runID = p.TaskID, p.RunID
		baseBranch = p.RoleLifecycle.Get(keyTreeBaseBranch + step)
	})
	w := c.cfg.Worktrees
	if baseBranch == "" {
		b, err := repo.BaseBranch(ctx, w.Base)
		if err != nil {
			return nil, err
		}
		baseBranch = b
	}
	// The ids become folder names: checked like the artifact folder's.
	for _, id := range [...][2]string{{"task_id", taskID}, {"run_id", runID}, {"step_id", step}} {
		if err := ledger.CheckID(id[0], id[1]); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(c.opts.Root, WorktreesDir, taskID, runID, step)
	branch := gitwork.BranchName(w.BranchPrefix, taskID, runID, step)
	var wt gitwork.Worktree
	var err error
	if stopped := c.trees.do(func() {
		ignoreWorktrees(c.opts.Root)
		wt, err = repo.Ensure(ctx, path, branch, baseBranch)
	}); stopped != nil {
		err = stopped
	}
	if err != nil {
		return nil, err
	}
	t := &stepTree{repo: repo, wt: wt, dir: filepath.Join(wt.Path, repo.Rel)}
	c.do(func(*loopState) {
		p.RoleLifecycle = p.RoleLifecycle.With(keyTreePath+step, wt.Path).With(keyTreeBranch+step, wt.Branch).
			With(keyTreeBase+step, wt.Base).With(keyTreeBaseBranch+step, baseBranch).With(keyTreeRepo+step, repo.Top)
	})
	c.note(c.events.system(taskID, runID, step, ledger.SeverityInfo, OpWorktreeReady,
		"path", wt.Path, "branch", wt.Branch, "base", wt.Base, "base_branch", baseBranch,
		"repo", repo.Top, "dir", t.dir, "reused", wt.Reused))
	if !wt.Reused {
		if err := c.setup(ctx, taskID, runID, step, repo, wt.Path); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// setup runs the repository's set-up script in a new worktree, only if
// the person allowed it for this repository.
func (c *Controller) setup(ctx context.Context, taskID, runID, step string, repo *gitwork.Repo, path string) error {
	w := c.cfg.Worktrees
	script := filepath.Join(path, w.SetupScript)
	if _, err := os.Stat(script); err != nil {
		return nil
	}
	if !repo.SetupAllowed(ctx) {
		c.record(c.events.system(taskID, runID, step, ledger.SeverityWarn, opWorktreeSetup,
			"script", w.SetupScript, "ran", false, "reason_code", ReasonSetupNotAllowed))
		return nil
	}
	res, err := gitwork.RunSetup(ctx, path, w.SetupScript, w.SetupTimeout.Std())
	severity, code := ledger.SeverityInfo, ""
	if err != nil {
		severity, code = ledger.SeverityError, ReasonSetupFailed
	}
	c.record(c.events.system(taskID, runID, step, severity, opWorktreeSetup,
		"script", w.SetupScript, "ran", true, "reason_code", code, "output", clip(string(res.Output), outputLineBytes)))
	if err != nil {
		return errSetup{err}
	}
	return nil
}

// errSetup is a set-up script that failed or timed out.
type errSetup struct{ error }

// ignoreWorktrees makes the worktrees folder ignored by a repository that
// contains the ledger root, so the steps' worktrees never show up as
// untracked files of the person's checkout.
func ignoreWorktrees(root string) {
	dir := filepath.Join(root, WorktreesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); err == nil {
		return
	}
	_ = os.WriteFile(gi, []byte("*\n"), 0o644)
}

// recordedTree rebuilds a step's worktree from the lifecycle keys, for a
// review a previous controller left pending. Called on the state loop.
func recordedTree(p *ledger.PipelineState, step string) (*stepTree, bool) {
	lc := p.RoleLifecycle
	path, top := lc.Get(keyTreePath+step), lc.Get(keyTreeRepo+step)
	if path == "" || top == "" {
		return nil, false
	}
	wt := gitwork.Worktree{Path: path, Branch: lc.Get(keyTreeBranch + step), Base: lc.Get(keyTreeBase + step),
		BaseBranch: lc.Get(keyTreeBaseBranch + step), Reused: true}
	return &stepTree{repo: &gitwork.Repo{Top: top}, wt: wt, dir: path}, true
}

// worktreeReason maps a failure to prepare a worktree to its reason code.
func worktreeReason(err error) string {
	var se errSetup
	if errors.As(err, &se) {
		return ReasonSetupFailed
	}
	return ReasonWorktree
}

// firstLine keeps an error message to one line for the ledger.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// treeFor returns the worktree step runs in, or nil when its lane runs in
// its own folder.
//
// The steps of a single pass or a loop build on each other's files (the
// reviewer reads the coder's change, the next iteration goes on from
// it), so such a run has one worktree, under the key runTreeKey, and the
// person reviews it once, after the judge (see reviewFlow).
//
// A lane whose isolation is auto and whose folder is no repository runs
// in its folder for the rest of the run: its steps build on each other's
// files, so they must not move into a worktree half way (and asking git
// again before every step would cost a process start each).
func (c *Controller) treeFor(ctx context.Context, r *run, step string, lane config.Lane) (*stepTree, error) {
	var inFolder bool
	c.do(func(*loopState) {
		inFolder = r.inFolder[lane.Name]
	})
	if inFolder {
		return nil, nil
	}
	repo, err := c.isolated(ctx, lane)
	if err != nil || repo == nil {
		if err == nil {
			c.do(func(*loopState) {
				if r.inFolder == nil {
					r.inFolder = map[string]bool{}
				}
				r.inFolder[lane.Name] = true
			})
		}
		return nil, err
	}
	key := step
	if c.cfg.Workflow.Flow() != config.FlowSequential {
		key = runTreeKey
	}
	return c.prepareTree(ctx, r, key, repo)
}
