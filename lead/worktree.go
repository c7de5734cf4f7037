package lead

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/lead/roster"
)

// workDir is where the Worker of issue runs: its own git worktree of the
// role's repo (made on first use, reused by later attempts on the issue,
// so two Workers of the role never share a checkout), or the role's folder
// itself when that is no git repository. tree is the worktree's top ("":
// none).
func (l *Lead) workDir(ctx context.Context, issue int64) (dir, tree string, err error) {
	repoDir := l.o.Workflow.RepoDir(l.o.Role)
	if err := ensureDir(repoDir); err != nil {
		return "", "", err
	}
	repo, err := gitwork.Open(ctx, repoDir)
	if errors.Is(err, gitwork.ErrNotRepo) || errors.Is(err, gitwork.ErrNoGit) {
		return repoDir, "", nil
	}
	if err != nil {
		return "", "", err
	}
	base, err := repo.BaseBranch(ctx, "")
	if err != nil {
		return "", "", err
	}
	root := roster.WorktreesDir(l.o.Workflow.Dir, l.o.Role)
	ignoreAll(filepath.Dir(root))
	// One git at a time on the repository: two Workers starting at once
	// would race for its worktree list.
	l.gitMu.Lock()
	wt, err := repo.Ensure(ctx, filepath.Join(root, strconv.FormatInt(issue, 10)), roster.WorktreeBranch(l.o.Role, issue), base)
	l.gitMu.Unlock()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(wt.Path, repo.Rel), wt.Path, nil
}

// ignoreAll makes dir ignored by a repository that contains it (the
// worktrees must not show up as untracked files of the person's checkout).
func ignoreAll(dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); err == nil {
		return
	}
	_ = os.WriteFile(gi, []byte("*\n"), 0o644)
}
