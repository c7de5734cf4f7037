package main

import (
	"fmt"
	"os"
	"path/filepath"
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
// base, else the branch checked out in its repository (asked once).
func (s worktreeScope) baseOf(a *app, r *gitwork.Repo) func(gitwork.Entry) string {
	asked, fallback := false, ""
	return func(e gitwork.Entry) string {
		if t, ok := s.byBranch[e.Branch]; ok && t.BaseBranch != "" {
			return t.BaseBranch
		}
		if !asked {
			asked = true
			fallback, _ = r.BaseBranch(a.ctx, s.cfg.Worktrees.Base)
		}
		return fallback
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
	owned := gitwork.OwnedBy(prefix, filepath.Join(dir, controller.WorktreesDir))
	var rows [][]string
	for _, r := range s.repos {
		if prune {
			res, err := r.Prune(a.ctx, owned, s.baseOf(a, r), force)
			if err != nil {
				return failf("E_WORKTREES_FAILED", a.t("cli.diff.git_failed", "Reason", err.Error()))
			}
			for _, p := range res {
				state := a.t("cli.worktrees.removed")
				if !p.Removed {
					state = a.t("cli.worktrees.kept", "Reasons", a.keepReasons(p.Kept))
				}
				rows = append(rows, []string{a.stepOfEntry(s, prefix, dir, p.Entry), p.Entry.Path, state})
			}
			continue
		}
		entries, err := r.List(a.ctx)
		if err != nil {
			return failf("E_WORKTREES_FAILED", a.t("cli.diff.git_failed", "Reason", err.Error()))
		}
		var mine []gitwork.Entry
		for i, e := range entries {
			if i > 0 && !e.Bare && owned(e) {
				mine = append(mine, e)
			}
		}
		for i, keep := range r.CheckAll(a.ctx, mine, s.baseOf(a, r)) {
			state := a.t("cli.worktrees.removable")
			if len(keep) > 0 {
				state = a.t("cli.worktrees.kept", "Reasons", a.keepReasons(keep))
			}
			rows = append(rows, []string{a.stepOfEntry(s, prefix, dir, mine[i]), mine[i].Path, state})
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

// stepOfEntry names the step of a worktree: "T/R/S" from its branch, or
// from its folder under the ledger's worktrees folder when the agent
// detached its HEAD or switched branches (said after the name).
func (a *app) stepOfEntry(s worktreeScope, prefix, dir string, e gitwork.Entry) string {
	if strings.HasPrefix(e.Branch, prefix+"/") {
		return stepOfBranch(prefix, e.Branch)
	}
	name := e.Path
	if rel, err := filepath.Rel(filepath.Join(dir, controller.WorktreesDir), e.Path); err == nil && !strings.HasPrefix(rel, "..") {
		name = filepath.ToSlash(rel)
	}
	for _, t := range s.byBranch {
		if t.Path == e.Path {
			name = t.TaskID + "/" + t.RunID + "/" + t.StepID
		}
	}
	if e.Branch == "" {
		return name + " (" + a.t("cli.worktrees.detached") + ")"
	}
	return name + " (" + a.t("cli.worktrees.on_branch", "Branch", e.Branch) + ")"
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
// and must be kept, with the reasons (for `daokit status`). Its cost
// does not grow by a git process per worktree: one listing per
// repository, then gitwork.CheckAll.
func (a *app) printKeptWorktrees(dir string) {
	trees, err := controller.RecordedTrees(dir)
	if err != nil {
		return
	}
	byRepo := map[string][]controller.StepTree{}
	var repos []string
	for _, t := range trees {
		if _, err := os.Stat(t.Path); err != nil {
			continue
		}
		if byRepo[t.Repo] == nil {
			repos = append(repos, t.Repo)
		}
		byRepo[t.Repo] = append(byRepo[t.Repo], t)
	}
	var rows [][]string
	for _, top := range repos {
		r := &gitwork.Repo{Top: top}
		live := map[string]gitwork.Entry{}
		if entries, err := r.List(a.ctx); err == nil {
			for _, e := range entries {
				live[realPath(e.Path)] = e
			}
		}
		list := byRepo[top]
		entries := make([]gitwork.Entry, len(list))
		base := map[string]string{}
		for i, t := range list {
			entries[i] = t.Entry()
			if e, ok := live[realPath(t.Path)]; ok {
				entries[i] = e // as it is now: detached, or on another branch
			}
			base[t.Path] = t.BaseBranch
		}
		for i, keep := range r.CheckAll(a.ctx, entries, func(e gitwork.Entry) string { return base[e.Path] }) {
			if len(keep) > 0 {
				t := list[i]
				rows = append(rows, []string{t.TaskID + "/" + t.RunID + "/" + t.StepID, t.Path, a.keepReasons(keep)})
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(a.io.out)
	fmt.Fprintln(a.io.out, a.t("cli.status.kept_worktrees"))
	writeTable(a.io.out, "  ", []string{a.t("cli.worktrees.col.step"), a.t("cli.worktrees.col.path"), a.t("cli.worktrees.col.why")}, rows)
}

// realPath resolves symbolic links in p, or returns p: git lists a
// worktree by its real folder, the ledger by the one daokit was given.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
