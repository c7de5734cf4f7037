package gitwork

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Keep is why a worktree must stay: a stable code that callers show in
// the person's language.
type Keep string

// The reasons a worktree is kept.
const (
	// KeepDirty: the worktree has uncommitted or untracked files.
	KeepDirty Keep = "dirty"
	// KeepUnmerged: its branch has commits that are neither in the base
	// branch nor on any remote.
	KeepUnmerged Keep = "unmerged"
	// KeepMissing: git could not look at it (the folder is gone or
	// broken); removing it would be a guess.
	KeepMissing Keep = "missing"
)

// Check returns why the worktree e (whose branch merges into baseBranch)
// must be kept, or nothing when removing it loses no work.
func (r *Repo) Check(ctx context.Context, e Entry, baseBranch string) []Keep {
	var keep []Keep
	out, err := run(ctx, e.Path, "status", "--porcelain", "--untracked-files=normal")
	switch {
	case err != nil:
		keep = append(keep, KeepMissing)
	case len(strings.TrimSpace(string(out))) > 0:
		keep = append(keep, KeepDirty)
	}
	if e.Branch == "" {
		return keep
	}
	if !r.merged(ctx, e.Branch, baseBranch) && !r.pushed(ctx, e.Branch) {
		keep = append(keep, KeepUnmerged)
	}
	return keep
}

// merged reports whether branch's tip is in baseBranch.
func (r *Repo) merged(ctx context.Context, branch, baseBranch string) bool {
	if baseBranch == "" {
		return false
	}
	ok, err := r.IsAncestor(ctx, "refs/heads/"+branch, "refs/heads/"+baseBranch)
	return err == nil && ok
}

// pushed reports whether some remote-tracking branch contains branch's tip.
func (r *Repo) pushed(ctx context.Context, branch string) bool {
	out, err := run(ctx, r.Top, "branch", "--remotes", "--contains", "refs/heads/"+branch)
	return err == nil && len(strings.TrimSpace(string(out))) > 0
}

// KeptError is returned by Remove for a worktree that must be kept.
type KeptError struct {
	Path    string
	Reasons []Keep
}

func (e *KeptError) Error() string {
	rs := make([]string, len(e.Reasons))
	for i, k := range e.Reasons {
		rs[i] = string(k)
	}
	return fmt.Sprintf("keep worktree %s: %s", e.Path, strings.Join(rs, ", "))
}

// ErrKept matches every KeptError with errors.Is.
var ErrKept = errors.New("gitwork: worktree kept")

// Is makes errors.Is(err, ErrKept) true for a KeptError.
func (e *KeptError) Is(target error) bool { return target == ErrKept }

// Remove removes the worktree e unless Check finds a reason to keep it;
// force removes it anyway. Its branch is never deleted, so even a forced
// removal keeps every commit reachable.
func (r *Repo) Remove(ctx context.Context, e Entry, baseBranch string, force bool) error {
	if !force {
		if keep := r.Check(ctx, e, baseBranch); len(keep) > 0 {
			return &KeptError{Path: e.Path, Reasons: keep}
		}
	}
	args := []string{"worktree", "remove"}
	if force {
		// Twice: once for a dirty tree, once more for a locked one.
		args = append(args, "--force", "--force")
	}
	_, err := run(ctx, r.Top, append(args, "--", e.Path)...)
	return err
}

// Pruned says what Prune did with one worktree.
type Pruned struct {
	Entry   Entry
	Removed bool
	// Kept holds the reasons it stayed (with Removed false), or the
	// reasons it had to be forced (with Removed true).
	Kept []Keep
	Err  error
}

// Prune removes the worktrees whose branch starts with prefix and that
// lose no work (see Check), or all of them with force, and drops git's
// records of worktrees whose folder is gone. baseOf names the branch
// each worktree's branch merges into.
func (r *Repo) Prune(ctx context.Context, prefix string, baseOf func(Entry) string, force bool) ([]Pruned, error) {
	if _, err := run(ctx, r.Top, "worktree", "prune"); err != nil {
		return nil, err
	}
	entries, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Pruned
	for _, e := range entries {
		if !strings.HasPrefix(e.Branch, strings.Trim(prefix, "/")+"/") {
			continue
		}
		p := Pruned{Entry: e, Kept: r.Check(ctx, e, baseOf(e))}
		if len(p.Kept) == 0 || force {
			p.Err = r.Remove(ctx, e, baseOf(e), true)
			p.Removed = p.Err == nil
		}
		out = append(out, p)
	}
	return out, nil
}
