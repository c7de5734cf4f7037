package config

import (
	"fmt"
	"net/mail"
	"strings"
	"time"
)

// Isolation says where a lane's workers work.
type Isolation string

// The isolation settings.
const (
	// IsolationAuto (the empty value) is IsolationWorktree for agent lanes
	// (sim, claude, codex) whose folder is inside a git repository, and
	// IsolationNone otherwise.
	IsolationAuto Isolation = ""
	// IsolationWorktree runs each step in a git worktree of its own, on a
	// new branch, so parallel steps never touch each other's files and a
	// person reviews the change before it reaches the base branch.
	IsolationWorktree Isolation = "worktree"
	// IsolationNone runs workers in the lane's folder itself.
	IsolationNone Isolation = "none"
)

// Merge modes of an accepted step (see Worktrees.Merge).
const (
	MergeFF     = "ff"
	MergeFFOnly = "ff-only"
	MergeNoFF   = "no-ff"
)

// How an accepted change is delivered (see Lane.Deliver).
const (
	// DeliverMerge merges the change into its base branch locally.
	DeliverMerge = "merge"
	// DeliverPR pushes the change's branch and opens a pull request.
	DeliverPR = "pr"
)

// DefaultRemote is the git remote a pull request's branch is pushed to.
const DefaultRemote = "origin"

// Defaults of the [worktrees] table.
const (
	DefaultBranchPrefix = "daokit"
	DefaultSetupScript  = ".daokit/worktree-setup.sh"
	DefaultSetupTimeout = 2 * time.Minute
)

// Worktrees holds how steps get their git worktrees and how an accepted
// change joins its base branch.
type Worktrees struct {
	// BranchPrefix starts every step branch: <prefix>/<task>/<run>/<step>.
	// Default "daokit".
	BranchPrefix string `toml:"branch_prefix"`
	// Base is the branch a step starts from and an accepted change merges
	// into. Default "": the branch checked out in the lane's repository.
	Base string `toml:"base"`
	// Merge is how an accepted change joins the base: "ff" (fast-forward
	// when the base has not moved, else a merge commit; the default),
	// "ff-only" or "no-ff" (always a merge commit). A conflict is
	// reported and never forced.
	Merge string `toml:"merge"`
	// SetupScript is the repository's script run in each new worktree
	// (relative to the repository's top), only after the person allowed
	// it once for that repository (`daokit worktrees --allow-setup`).
	// Default ".daokit/worktree-setup.sh".
	SetupScript string `toml:"setup_script"`
	// SetupTimeout bounds the set-up script; when it passes, the script's
	// whole process group is killed and the step fails. Default 2m.
	SetupTimeout Duration `toml:"setup_timeout"`
	// CommitAuthor writes the commit an accept makes of the work an agent
	// left uncommitted (and a merge commit), as "Name <email>". Default
	// "": the repository's own git identity, else "daokit
	// <daokit@localhost>".
	CommitAuthor string `toml:"commit_author"`
	// Remote is the git remote the branch of a change delivered as a
	// pull request is pushed to. Default "origin".
	Remote string `toml:"remote"`
	// PRRepo is the GitHub repository ("owner/name") pull requests are
	// opened on. Default "": read from the remote's URL (github.com, or
	// a GitHub Enterprise host).
	PRRepo string `toml:"pr_repo"`
	// PRAPIURL is the GitHub REST root. Default "": the public API for a
	// github.com remote, https://HOST/api/v3 for another host.
	PRAPIURL string `toml:"pr_api_url"`
	// PRForge is where the change request is opened: ForgeGitHub (a pull
	// request) or ForgeGitLab (a merge request). Default "": GitLab when
	// the remote's host names it (gitlab.com, gitlab.example.com), else
	// GitHub; a self-hosted GitLab under another name sets it.
	PRForge string `toml:"pr_forge"`
}

// The forges [worktrees] pr_forge names.
const (
	ForgeGitHub = "github"
	ForgeGitLab = "gitlab"
)

// DeliversPR reports whether the lane's accepted changes become pull
// requests.
func (l Lane) DeliversPR() bool { return l.Deliver == DeliverPR }

// DefaultWorktrees returns the [worktrees] settings of a file without them.
func DefaultWorktrees() Worktrees {
	return Worktrees{BranchPrefix: DefaultBranchPrefix, Merge: MergeFF, Remote: DefaultRemote,
		SetupScript: DefaultSetupScript, SetupTimeout: Duration(DefaultSetupTimeout)}
}

// IsolationOf returns the lane's isolation: the lane's own setting, else
// the workflow's. IsolationAuto is left for the caller, which knows
// whether the folder is in a repository.
func (c *Config) IsolationOf(l Lane) Isolation {
	if l.Isolation != IsolationAuto {
		return l.Isolation
	}
	return c.Workflow.Isolation
}

// Agent reports whether k is a coding agent (which edits files), as
// opposed to an arbitrary command.
func (k Kind) Agent() bool { return k == KindSim || k == KindClaude || k == KindCodex || k == "" }

func validIsolation(i Isolation) bool {
	return i == IsolationAuto || i == IsolationWorktree || i == IsolationNone
}

func validMerge(m string) bool { return m == MergeFF || m == MergeFFOnly || m == MergeNoFF }

// validPrefix accepts names joined by single slashes, each a valid name.
func validPrefix(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if !validName(part) || strings.HasSuffix(part, ".lock") || strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}

func (c *Config) validateWorktrees(p *problems) {
	for i, l := range c.Lanes {
		if !validIsolation(l.Isolation) {
			p.add(&Error{Code: CodeEnum, Key: fmt.Sprintf("lanes[%d].isolation", i), Value: show(string(l.Isolation)), Want: "worktree, none"})
		}
		if l.Deliver != "" && l.Deliver != DeliverMerge && l.Deliver != DeliverPR {
			p.add(&Error{Code: CodeEnum, Key: fmt.Sprintf("lanes[%d].deliver", i), Value: show(l.Deliver), Want: "merge, pr"})
		}
	}
	if !validIsolation(c.Workflow.Isolation) {
		p.add(&Error{Code: CodeEnum, Key: "workflow.isolation", Value: show(string(c.Workflow.Isolation)), Want: "worktree, none"})
	}
	w := c.Worktrees
	if !validPrefix(w.BranchPrefix) {
		p.add(&Error{Code: CodeName, Key: "worktrees.branch_prefix", Value: show(w.BranchPrefix)})
	}
	if w.Base != "" && !validPrefix(w.Base) {
		p.add(&Error{Code: CodeName, Key: "worktrees.base", Value: show(w.Base)})
	}
	if !validMerge(w.Merge) {
		p.add(&Error{Code: CodeEnum, Key: "worktrees.merge", Value: show(w.Merge), Want: "ff, ff-only, no-ff"})
	}
	if w.SetupScript == "" {
		p.add(&Error{Code: CodeRequired, Key: "worktrees.setup_script"})
	}
	atLeast(p, "worktrees.setup_timeout", w.SetupTimeout, time.Second)
	if w.Remote == "" || strings.HasPrefix(w.Remote, "-") {
		p.add(&Error{Code: CodeName, Key: "worktrees.remote", Value: show(w.Remote)})
	}
	if w.PRForge != "" && w.PRForge != ForgeGitHub && w.PRForge != ForgeGitLab {
		p.add(&Error{Code: CodeEnum, Key: "worktrees.pr_forge", Value: show(w.PRForge), Want: "github, gitlab"})
	}
	switch {
	case w.PRRepo == "":
	case w.PRForge == ForgeGitLab && !validProject(w.PRRepo):
		p.add(&Error{Code: CodeType, Key: "worktrees.pr_repo", Value: show(w.PRRepo), Want: "gitlab_project"})
	case w.PRForge == ForgeGitHub && !validRepo(w.PRRepo), w.PRForge == "" && !validRepo(w.PRRepo) && !validProject(w.PRRepo):
		p.add(&Error{Code: CodeType, Key: "worktrees.pr_repo", Value: show(w.PRRepo), Want: "github_repo"})
	}
	if w.PRAPIURL != "" && !strings.HasPrefix(w.PRAPIURL, "https://") && !strings.HasPrefix(w.PRAPIURL, "http://") {
		p.add(&Error{Code: CodeType, Key: "worktrees.pr_api_url", Value: show(w.PRAPIURL), Want: "url"})
	}
	if w.CommitAuthor != "" && !validAuthor(w.CommitAuthor) {
		p.add(&Error{Code: CodeType, Key: "worktrees.commit_author", Value: show(w.CommitAuthor), Want: "author"})
	}
}

// validAuthor accepts a git identity "Name <email>" (what
// gitwork.ParseAuthor reads).
func validAuthor(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name != "" && !strings.ContainsAny(a.Name+a.Address, "<>\n")
}

func decodeWorktrees(s *table, w *Worktrees) {
	s.str("branch_prefix", &w.BranchPrefix)
	s.str("base", &w.Base)
	s.str("merge", &w.Merge)
	s.str("setup_script", &w.SetupScript)
	s.duration("setup_timeout", &w.SetupTimeout)
	s.str("commit_author", &w.CommitAuthor)
	s.str("remote", &w.Remote)
	s.str("pr_repo", &w.PRRepo)
	s.str("pr_api_url", &w.PRAPIURL)
	s.str("pr_forge", &w.PRForge)
	s.done()
}

// validProject accepts a GitLab project's path: a group, its subgroups
// and the project, "group/sub/name" (at most 20 levels of subgroups).
func validProject(s string) bool {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 21 {
		return false
	}
	for _, part := range parts {
		if !validName(part) {
			return false
		}
	}
	return true
}

// validRepo accepts "owner/name" as GitHub spells them.
func validRepo(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && validName(owner) && validName(name) && !strings.Contains(name, "/")
}
