package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
	"github.com/spf13/cobra"
)

func newWorktreesCmd(a *app) *cobra.Command {
	c := a.command("worktrees", "cli.worktrees.summary", nil)
	f := c.Flags()
	root := rootFlag(f)
	prune := f.Bool("prune", false, "cli.worktrees.flag.prune")
	force := f.Bool("force", false, "cli.worktrees.flag.force")
	allow := f.Bool("allow-setup", false, "cli.worktrees.flag.allow_setup")
	c.RunE = func(c *cobra.Command, _ []string) error {
		if *force && !*prune {
			return a.usage(c, a.t("cli.worktrees.error.force_alone"))
		}
		return a.runWorktrees(*root, *prune, *force, *allow)
	}
	return c
}

// worktreeScope is what `daokit worktrees` looks at: the repositories of
// the ledger's recorded worktrees and of its worktree lanes.
type worktreeScope struct {
	cfg   config.Config
	repos []*gitwork.Repo
	// byBranch are the recorded worktrees by branch.
	byBranch map[string]controller.StepTree
	// laneRepos are the repositories of the lanes.
	laneRepos []*gitwork.Repo
}

func (a *app) worktreeScope(dir string) (worktreeScope, error) {
	cfg, err := a.loadConfig(dir)
	if err != nil {
		return worktreeScope{}, err
	}
	trees, err := controller.RecordedTrees(dir)
	if err != nil {
		return worktreeScope{}, failf("E_WORKTREES_FAILED", a.fileProblem(ledger.Layout{Root: dir}.Events(), err))
	}
	s := worktreeScope{cfg: cfg, byBranch: map[string]controller.StepTree{}}
	seen := map[string]bool{}
	add := func(r *gitwork.Repo) {
		if !seen[r.Top] {
			seen[r.Top] = true
			s.repos = append(s.repos, r)
		}
	}
	for _, l := range cfg.Lanes {
		if r, err := gitwork.Open(a.ctx, l.WorkDir(dir)); err == nil {
			add(r)
			s.laneRepos = append(s.laneRepos, r)
		}
	}
	for _, t := range trees {
		s.byBranch[t.Branch] = t
		if _, err := os.Stat(t.Repo); err == nil {
			add(&gitwork.Repo{Top: t.Repo})
		}
	}
	return s, nil
}

// baseOf is the branch e merges into: as recorded, else the configured
// base, else the branch checked out in its repository.
func (s worktreeScope) baseOf(a *app, r *gitwork.Repo) func(gitwork.Entry) string {
	return func(e gitwork.Entry) string {
		if t, ok := s.byBranch[e.Branch]; ok && t.BaseBranch != "" {
			return t.BaseBranch
		}
		b, _ := r.BaseBranch(a.ctx, s.cfg.Worktrees.Base)
		return b
	}
}

func (a *app) runWorktrees(root string, prune, force, allow bool) error {
	dir, err := absRoot(root)
	if err != nil {
		return failf("E_WORKTREES_FAILED", err.Error())
	}
	if err := requireLedger(a, dir); err != nil {
		return failf("E_WORKTREES_FAILED", err.Error())
	}
	s, err := a.worktreeScope(dir)
	if err != nil {
		return err
	}
	if allow {
		for _, r := range s.laneRepos {
			if err := r.AllowSetup(a.ctx, true); err != nil {
				return failf("E_WORKTREES_FAILED", a.t("cli.diff.git_failed", "Reason", err.Error()))
			}
			a.println(a.t("cli.worktrees.allowed", "Repo", r.Top))
		}
		if len(s.laneRepos) == 0 {
			a.println(a.t("cli.worktrees.no_repo"))
		}
	}
	prefix := s.cfg.Worktrees.BranchPrefix
	var rows [][]string
	for _, r := range s.repos {
		if prune {
			res, err := r.Prune(a.ctx, prefix, s.baseOf(a, r), force)
			if err != nil {
				return failf("E_WORKTREES_FAILED", a.t("cli.diff.git_failed", "Reason", err.Error()))
			}
			for _, p := range res {
				state := a.t("cli.worktrees.removed")
				if !p.Removed {
					state = a.t("cli.worktrees.kept", "Reasons", a.keepReasons(p.Kept))
				}
				rows = append(rows, []string{stepOfBranch(prefix, p.Entry.Branch), p.Entry.Path, state})
			}
			continue
		}
		entries, err := r.List(a.ctx)
		if err != nil {
			return failf("E_WORKTREES_FAILED", a.t("cli.diff.git_failed", "Reason", err.Error()))
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Branch, prefix+"/") {
				continue
			}
			state := a.t("cli.worktrees.removable")
			if keep := r.Check(a.ctx, e, s.baseOf(a, r)(e)); len(keep) > 0 {
				state = a.t("cli.worktrees.kept", "Reasons", a.keepReasons(keep))
			}
			rows = append(rows, []string{stepOfBranch(prefix, e.Branch), e.Path, state})
		}
	}
	if len(rows) == 0 {
		a.println(a.t("cli.worktrees.none"))
		return nil
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	writeTable(a.io.out, "", []string{a.t("cli.worktrees.col.step"), a.t("cli.worktrees.col.path"), a.t("cli.worktrees.col.state")}, rows)
	return nil
}

// stepOfBranch turns "<prefix>/T/R/S" into "T/R/S".
func stepOfBranch(prefix, branch string) string { return strings.TrimPrefix(branch, prefix+"/") }

// keepReasons names why worktrees are kept, in the reader's language.
func (a *app) keepReasons(keep []gitwork.Keep) string {
	names := make([]string, len(keep))
	for i, k := range keep {
		names[i] = a.t("cli.worktrees.keep." + string(k))
	}
	return strings.Join(names, a.t("cli.worktrees.list_sep"))
}

// printKeptWorktrees lists the ledger's step worktrees that still exist
// and must be kept, with the reasons (for `daokit status`).
func (a *app) printKeptWorktrees(dir string) {
	trees, err := controller.RecordedTrees(dir)
	if err != nil {
		return
	}
	var rows [][]string
	for _, t := range trees {
		if _, err := os.Stat(t.Path); err != nil {
			continue
		}
		r := &gitwork.Repo{Top: t.Repo}
		if keep := r.Check(a.ctx, t.Entry(), t.BaseBranch); len(keep) > 0 {
			rows = append(rows, []string{t.TaskID + "/" + t.RunID + "/" + t.StepID, t.Path, a.keepReasons(keep)})
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(a.io.out)
	fmt.Fprintln(a.io.out, a.t("cli.status.kept_worktrees"))
	writeTable(a.io.out, "  ", []string{a.t("cli.worktrees.col.step"), a.t("cli.worktrees.col.path"), a.t("cli.worktrees.col.why")}, rows)
}
