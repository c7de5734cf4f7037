package gitwork

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Worktree is the worktree of one step.
type Worktree struct {
	// Path is the worktree's top folder.
	Path string
	// Branch is the step's branch, checked out in Path.
	Branch string
	// BaseBranch is the branch the step started from and merges into.
	BaseBranch string
	// Base is the commit the branch started at.
	Base string
	// Reused is set when the worktree (or its branch) already existed,
	// as after a controller was killed during the step.
	Reused bool
}

// ErrPathTaken is returned when a worktree's folder exists but is not a
// worktree of that branch: daokit never writes over a folder it did not
// make.
var ErrPathTaken = errors.New("gitwork: folder exists and is not the step's worktree")

// Ensure returns the worktree of branch at path, creating it from the tip
// of baseBranch when it does not exist yet. A worktree already there on
// that branch is reused, and so is the branch alone (its folder was
// removed): the step's work is never started over on a second branch.
func (r *Repo) Ensure(ctx context.Context, path, branch, baseBranch string) (Worktree, error) {
	wt := Worktree{Path: path, Branch: branch, BaseBranch: baseBranch}
	entries, err := r.List(ctx)
	if err != nil {
		return wt, err
	}
	for _, e := range entries {
		if e.Branch != branch {
			continue
		}
		if !e.Prunable && samePath(e.Path, path) {
			wt.Reused = true
			wt.Base, err = r.mergeBase(ctx, baseBranch, branch)
			return wt, err
		}
		if !e.Prunable {
			return wt, fmt.Errorf("branch %s is checked out at %s: %w", branch, e.Path, ErrPathTaken)
		}
	}
	if _, err := os.Lstat(path); err == nil {
		return wt, fmt.Errorf("%s: %w", path, ErrPathTaken)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return wt, fmt.Errorf("create worktree: %w", err)
	}
	if _, err := r.Resolve(ctx, "refs/heads/"+branch); err == nil {
		// The branch outlived its folder: prune the stale record, then
		// check the branch out again.
		if _, err := run(ctx, r.Top, "worktree", "prune"); err != nil {
			return wt, err
		}
		if _, err := run(ctx, r.Top, "worktree", "add", "--quiet", path, branch); err != nil {
			return wt, err
		}
		wt.Reused = true
		wt.Base, err = r.mergeBase(ctx, baseBranch, branch)
		return wt, err
	}
	base, err := r.Resolve(ctx, "refs/heads/"+baseBranch)
	if err != nil {
		return wt, fmt.Errorf("base branch %q: %w", baseBranch, ErrNoBranch)
	}
	// The commit, not the branch name: the branch may move while the step
	// works, and the recorded base must be what the step saw.
	if _, err := run(ctx, r.Top, "worktree", "add", "--quiet", "-b", branch, path, base); err != nil {
		return wt, err
	}
	wt.Base = base
	return wt, nil
}

// MergeBase returns the commit branches a and b last shared: where a
// worktree's branch left its base, which a change is read against even
// after the base moved on.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	return r.mergeBase(ctx, a, b)
}

func (r *Repo) mergeBase(ctx context.Context, a, b string) (string, error) {
	return line(ctx, r.Top, "merge-base", "refs/heads/"+a, "refs/heads/"+b)
}

// samePath compares two folders after resolving symbolic links (a
// temporary folder on macOS is reached through /var and /private/var).
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
