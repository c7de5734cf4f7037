package lead

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/daokit/daokit/gitwork"
)

// worktreesDir is the folder, in the outbox root, that holds role's
// Workers' worktrees (<outbox root>/team-worktrees/<role>/<issue>):
// outside the outbox's folder, which the guard makes read-only for
// Workers, and apart from the controller's step worktrees (and their
// branch prefix), whose prune must not take a worktree a Worker is in.
func worktreesDir(outboxRoot, role string) string {
	return filepath.Join(outboxRoot, "team-worktrees", role)
}

// worktreeBranch is the branch of role's worktree for issue
// (daokit-team/<role>/<issue>).
func worktreeBranch(role string, issue int64) string {
	return "daokit-team/" + role + "/" + strconv.FormatInt(issue, 10)
}

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
	root := worktreesDir(l.o.Workflow.Dir, l.o.Role)
	ignoreAll(filepath.Dir(root))
	// One git at a time on the repository: two Workers starting at once
	// would race for its worktree list.
	l.gitMu.Lock()
	wt, err := repo.Ensure(ctx, filepath.Join(root, strconv.FormatInt(issue, 10)), worktreeBranch(l.o.Role, issue), base)
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
