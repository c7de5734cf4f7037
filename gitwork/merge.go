package gitwork

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// MergeMode says how an accepted step's branch joins its base branch.
type MergeMode string

// The merge modes.
const (
	// MergeFF fast-forwards when the base has not moved, else makes a
	// merge commit. The default.
	MergeFF MergeMode = "ff"
	// MergeFFOnly only fast-forwards; a base that moved is an error.
	MergeFFOnly MergeMode = "ff-only"
	// MergeNoFF always makes a merge commit, so the base's history shows
	// each accepted step.
	MergeNoFF MergeMode = "no-ff"
)

// ErrNotFastForward is returned in MergeFFOnly mode when the base branch
// moved since the step started.
var ErrNotFastForward = errors.New("gitwork: base branch moved; not a fast-forward")

// ConflictError is a merge that would conflict. Nothing was changed.
type ConflictError struct {
	Branch, Into string
	// Files are the paths that conflict.
	Files []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("merge %s into %s: conflict in %s", e.Branch, e.Into, strings.Join(e.Files, ", "))
}

// ErrConflict matches every ConflictError with errors.Is.
var ErrConflict = errors.New("gitwork: merge conflict")

// Is makes errors.Is(err, ErrConflict) true for a ConflictError.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Merged is what Merge did.
type Merged struct {
	// Commit is the base branch's new tip.
	Commit string
	// FastForward is set when no merge commit was made.
	FastForward bool
	// Already is set when the branch was in the base already.
	Already bool
}

// Merge brings branch into the branch into. The merge is computed
// without touching any work tree (git merge-tree), so a conflict is
// reported with nothing changed; then the base moves by fast-forward
// only: in the worktree where it is checked out (git refuses if that
// would overwrite the person's uncommitted changes) or, when it is not
// checked out, by a compare-and-swap of the ref.
func (r *Repo) Merge(ctx context.Context, branch, into string, mode MergeMode, message string) (Merged, error) {
	return r.MergeAs(ctx, branch, into, mode, message, Author{})
}

// MergeAs is Merge with a merge commit written by author (see Author).
func (r *Repo) MergeAs(ctx context.Context, branch, into string, mode MergeMode, message string, author Author) (Merged, error) {
	tip, err := r.Resolve(ctx, "refs/heads/"+branch)
	if err != nil {
		return Merged{}, fmt.Errorf("merge %s: %w", branch, ErrNoBranch)
	}
	old, err := r.Resolve(ctx, "refs/heads/"+into)
	if err != nil {
		return Merged{}, fmt.Errorf("merge into %s: %w", into, ErrNoBranch)
	}
	if in, err := r.IsAncestor(ctx, tip, old); err != nil {
		return Merged{}, err
	} else if in {
		return Merged{Commit: old, Already: true}, nil
	}
	ff, err := r.IsAncestor(ctx, old, tip)
	if err != nil {
		return Merged{}, err
	}
	next := tip
	switch {
	case ff && mode != MergeNoFF:
	case mode == MergeFFOnly:
		return Merged{}, ErrNotFastForward
	default:
		next, err = r.mergeCommit(ctx, branch, into, old, tip, message, author)
		if err != nil {
			return Merged{}, err
		}
	}
	if err := r.advance(ctx, into, old, next, message); err != nil {
		return Merged{}, err
	}
	return Merged{Commit: next, FastForward: next == tip}, nil
}

// mergeCommit writes the merge of tip into old as a commit that no
// branch points at yet.
func (r *Repo) mergeCommit(ctx context.Context, branch, into, old, tip, message string, author Author) (string, error) {
	out, err := run(ctx, r.Top, "merge-tree", "--write-tree", "--name-only", "--no-messages", old, tip)
	if exitCode(err) == 1 {
		// First line: the tree; then one conflicted path per line.
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return "", &ConflictError{Branch: branch, Into: into, Files: lines[1:]}
	}
	if err != nil {
		return "", err
	}
	tree, _, _ := strings.Cut(string(out), "\n")
	args := append(author.gitArgs(ctx, r.Top), "commit-tree", strings.TrimSpace(tree), "-p", old, "-p", tip, "-m", message)
	return line(ctx, r.Top, args...)
}

// identity supplies a committer for repositories without one configured
// (a fresh machine, a CI runner), where git would refuse to commit.
func identity(ctx context.Context, dir string) []string {
	if email, err := line(ctx, dir, "config", "user.email"); err == nil && email != "" {
		return nil
	}
	return []string{"-c", "user.name=daokit", "-c", "user.email=daokit@localhost"}
}

// advance moves branch into from old to next (a descendant of old).
func (r *Repo) advance(ctx context.Context, into, old, next, message string) error {
	entries, err := r.List(ctx)
	if err != nil {
		return err
	}
	if e, ok := checkedOut(entries, into); ok {
		// Also moves that work tree's files; refuses rather than
		// overwrite what the person has not committed.
		_, err := run(ctx, e.Path, "merge", "--ff-only", "--quiet", next)
		return err
	}
	_, err = run(ctx, r.Top, "update-ref", "-m", message, "refs/heads/"+into, next, old)
	return err
}
