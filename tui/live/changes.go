package live

import (
	"context"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/ledger"
)

// ChangeSource is where a step's change is read: its worktree while it
// exists (live, uncommitted edits included), else its branch.
type ChangeSource struct {
	Step, Path, Base, Branch, Repo string
}

// Valid reports whether there is anything to read.
func (s ChangeSource) Valid() bool { return s.Path != "" && s.Base != "" }

// ChangeSourceOf reads the current step's worktree from the pipeline's
// role_lifecycle (the keys the controller records with WORKTREE_READY).
func ChangeSourceOf(p *ledger.PipelineState) ChangeSource {
	step := p.CurrentStep
	lc := p.RoleLifecycle
	return ChangeSource{Step: step, Path: lc.Get("worktree:" + step), Base: lc.Get("worktree_base:" + step),
		Branch: lc.Get("worktree_branch:" + step), Repo: lc.Get("worktree_repo:" + step)}
}

// ChangesMsg is a step's change, read by LoadChanges.
type ChangesMsg struct {
	Source ChangeSource
	Files  []gitwork.FileDiff
	Err    error
}

// LoadChanges reads src's diff with git, off the Update path.
func LoadChanges(ctx context.Context, src ChangeSource) tea.Cmd {
	return func() tea.Msg {
		var data []byte
		var err error
		if _, serr := os.Stat(src.Path); serr == nil {
			data, err = gitwork.DiffWorktree(ctx, src.Path, src.Base)
		} else {
			data, err = (&gitwork.Repo{Top: src.Repo}).DiffBranch(ctx, src.Base, src.Branch)
		}
		return ChangesMsg{Source: src, Files: gitwork.Parse(data), Err: err}
	}
}
