package gitwork

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotRepo is returned by Open for a folder outside any git work tree
// (or one that git ignores, such as a demo root inside a checkout: its
// files are not the repository's, so a worktree of it would be wrong).
var ErrNotRepo = errors.New("gitwork: not in a git repository")

// Repo is the git repository a lane's folder belongs to.
type Repo struct {
	// Top is the top folder of the work tree that contains the lane's
	// folder (the main one or a linked worktree).
	Top string
	// Rel is the lane's folder relative to Top ("." for Top itself); the
	// worker runs in the same place inside its own worktree.
	Rel string
}

// Open finds the repository that dir belongs to.
func Open(ctx context.Context, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	top, err := line(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		if errors.Is(err, ErrNoGit) {
			return nil, err
		}
		return nil, ErrNotRepo
	}
	if top == "" {
		return nil, ErrNotRepo // inside .git or a bare repository
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open repository: %w", err)
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, ErrNotRepo
	}
	if rel != "." {
		// check-ignore exits 0 when the path is ignored.
		if _, err := run(ctx, top, "check-ignore", "-q", "--", rel); err == nil {
			return nil, ErrNotRepo
		}
	}
	return &Repo{Top: top, Rel: rel}, nil
}

// Head returns the commit HEAD points at.
func (r *Repo) Head(ctx context.Context) (string, error) {
	return r.Resolve(ctx, "HEAD")
}

// Resolve returns the commit that rev names.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	return line(ctx, r.Top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
}

// CurrentBranch returns the branch checked out in the repository's work
// tree, or "" when HEAD is detached.
func (r *Repo) CurrentBranch(ctx context.Context) (string, error) {
	b, err := line(ctx, r.Top, "symbolic-ref", "--quiet", "--short", "HEAD")
	if exitCode(err) == 1 {
		return "", nil
	}
	return b, err
}

// BaseBranch returns the branch a worktree starts from and an accepted
// change merges into: base itself when set, else the branch checked out
// in the repository. A detached HEAD has no branch to merge into.
func (r *Repo) BaseBranch(ctx context.Context, base string) (string, error) {
	if base != "" {
		if _, err := r.Resolve(ctx, "refs/heads/"+base); err != nil {
			return "", fmt.Errorf("base branch %q: %w", base, ErrNoBranch)
		}
		return base, nil
	}
	b, err := r.CurrentBranch(ctx)
	if err != nil {
		return "", err
	}
	if b == "" {
		return "", fmt.Errorf("base branch: HEAD is detached: %w", ErrNoBranch)
	}
	return b, nil
}

// ErrNoBranch is returned when the base branch does not exist or HEAD is
// detached and no base is configured.
var ErrNoBranch = errors.New("gitwork: no such branch")

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := run(ctx, r.Top, "merge-base", "--is-ancestor", a, b)
	switch exitCode(err) {
	case -1:
		return err == nil, err
	case 1:
		return false, nil
	}
	return false, err
}

// BranchName returns the branch of a step's worktree: prefix, then the
// task, run and step ids, separated by slashes ("daokit/T/R/S").
func BranchName(prefix, task, run, step string) string {
	prefix = strings.Trim(prefix, "/")
	return prefix + "/" + task + "/" + run + "/" + step
}
