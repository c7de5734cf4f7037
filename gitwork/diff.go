package gitwork

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// diffArgs are the options of every diff daokit reads: no colour, no
// external diff driver or textconv (their output is not a unified diff),
// and paths as they are (no octal quoting of non-ASCII names).
var diffArgs = []string{"-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}

// DiffWorktree returns the unified diff of the worktree at path against
// base: committed and uncommitted changes, new files git does not ignore
// included, which is what a step has done so far and what an accept
// delivers (see CommitWork). The new files are staged in a temporary
// copy of the index, so the agent's own index is never touched.
func DiffWorktree(ctx context.Context, path, base string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "daokit-diff-")
	if err != nil {
		return nil, fmt.Errorf("diff worktree: %w", err)
	}
	defer os.RemoveAll(dir)
	index := filepath.Join(dir, "index")
	env := []string{"GIT_INDEX_FILE=" + index}
	// A copy of the worktree's index keeps git's record of file stats,
	// so that adding every file rehashes only the changed ones.
	if !copyIndex(ctx, path, index) {
		if _, err := runEnv(ctx, path, env, "read-tree", "HEAD"); err != nil {
			return nil, err
		}
	}
	if _, err := runEnv(ctx, path, env, "add", "--all"); err != nil {
		return nil, err
	}
	return runEnv(ctx, path, env, append(append([]string(nil), diffArgs...), "--cached", base, "--")...)
}

// copyIndex copies the index of the work tree at dir to dst.
func copyIndex(ctx context.Context, dir, dst string) bool {
	src, err := line(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return false
	}
	data, err := os.ReadFile(src)
	return err == nil && os.WriteFile(dst, data, 0o600) == nil
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
