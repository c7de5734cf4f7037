package gitwork

import (
	"context"
)

// diffArgs are the options of every diff daokit reads: no colour, no
// external diff driver or textconv (their output is not a unified diff),
// and paths as they are (no octal quoting of non-ASCII names).
var diffArgs = []string{"-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}

// DiffWorktree returns the unified diff of the worktree at path against
// base: committed and uncommitted changes to tracked files, which is what
// a step has done so far while it still works.
func DiffWorktree(ctx context.Context, path, base string) ([]byte, error) {
	return run(ctx, path, append(append([]string(nil), diffArgs...), base, "--")...)
}

// DiffBranch returns the unified diff from commit base to branch's tip:
// what accepting the step would bring.
func (r *Repo) DiffBranch(ctx context.Context, base, branch string) ([]byte, error) {
	return run(ctx, r.Top, append(append([]string(nil), diffArgs...), base, "refs/heads/"+branch, "--")...)
}

// CommitAll commits every change in the work tree at dir (new files
// included) with message, and returns the new commit; it returns "" when
// there was nothing to commit. Used by the simulated worker.
func CommitAll(ctx context.Context, dir, message string) (string, error) {
	if _, err := run(ctx, dir, "add", "--all"); err != nil {
		return "", err
	}
	if _, err := run(ctx, dir, "diff", "--cached", "--quiet"); err == nil {
		return "", nil
	}
	args := append(identity(ctx, dir), "commit", "--quiet", "--no-verify", "-m", message)
	if _, err := run(ctx, dir, args...); err != nil {
		return "", err
	}
	return line(ctx, dir, "rev-parse", "HEAD")
}
