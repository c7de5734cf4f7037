package gitwork

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
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
// must be kept, or nothing when removing it loses no work: no file that
// is not committed (ignored ones included: nothing else holds them), and
// no commit that only its HEAD holds.
func (r *Repo) Check(ctx context.Context, e Entry, baseBranch string) []Keep {
	return r.CheckAll(ctx, []Entry{e}, func(Entry) string { return baseBranch })[0]
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
		// What is checked out there now, not what the caller recorded: an
		// agent may have detached HEAD or switched branches.
		if entries, err := r.List(ctx); err == nil {
			for _, l := range entries {
				if samePath(l.Path, e.Path) {
					e = l
				}
			}
		}
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

// Prune removes the worktrees owned says are daokit's (never the main
// one) that lose no work (see Check), or all of them with force, and
// drops git's records of worktrees whose folder is gone. owned sees each
// worktree as it is now, detached or on another branch than its step's.
// baseOf names the branch each worktree's branch merges into.
func (r *Repo) Prune(ctx context.Context, owned func(Entry) bool, baseOf func(Entry) string, force bool) ([]Pruned, error) {
	if _, err := run(ctx, r.Top, "worktree", "prune"); err != nil {
		return nil, err
	}
	entries, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	var mine []Entry
	for i, e := range entries {
		if i > 0 && !e.Bare && owned(e) {
			mine = append(mine, e)
		}
	}
	kept := r.CheckAll(ctx, mine, baseOf)
	out := make([]Pruned, 0, len(mine))
	for i, e := range mine {
		p := Pruned{Entry: e, Kept: kept[i]}
		if len(p.Kept) == 0 || force {
			p.Err = r.Remove(ctx, e, baseOf(e), true)
			p.Removed = p.Err == nil
		}
		out = append(out, p)
	}
	return out, nil
}

// OwnedBy selects the worktrees of a ledger: those on a branch that
// starts with prefix, and those whose folder is under dir (the ledger's
// worktrees folder), whatever their HEAD is now.
func OwnedBy(prefix, dir string) func(Entry) bool {
	prefix = strings.Trim(prefix, "/") + "/"
	return func(e Entry) bool {
		if strings.HasPrefix(e.Branch, prefix) {
			return true
		}
		if dir == "" {
			return false
		}
		rel, err := filepath.Rel(dir, e.Path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			rel, err = filepath.Rel(realPath(dir), realPath(e.Path))
		}
		return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
	}
}

// realPath resolves symbolic links in p, or returns p.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
