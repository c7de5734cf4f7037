package gitwork

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
)

// Author is who writes the commits daokit makes on a person's behalf
// (the commit of an agent's uncommitted work, a merge commit).
type Author struct {
	Name, Email string
}

// DefaultAuthor writes daokit's commits in a repository that has no
// identity of its own (a fresh machine, a CI runner), where git would
// refuse to commit.
var DefaultAuthor = Author{Name: "daokit", Email: "daokit@localhost"}

// ParseAuthor reads "Name <email>", the form git prints. An empty string
// is the zero Author: the repository's own identity, else DefaultAuthor.
func ParseAuthor(s string) (Author, error) {
	if strings.TrimSpace(s) == "" {
		return Author{}, nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name == "" || strings.ContainsAny(a.Name+a.Address, "<>\n") {
		return Author{}, fmt.Errorf("author %q: want \"Name <email>\"", s)
	}
	return Author{Name: a.Name, Email: a.Address}, nil
}

// String is "Name <email>", or "" for the zero Author.
func (a Author) String() string {
	if a.Name == "" {
		return ""
	}
	return a.Name + " <" + a.Email + ">"
}

// gitArgs are the options that make git commit as a: the configured
// author, else the repository's identity, else DefaultAuthor.
func (a Author) gitArgs(ctx context.Context, dir string) []string {
	if a.Name != "" {
		return []string{"-c", "user.name=" + a.Name, "-c", "user.email=" + a.Email}
	}
	return identity(ctx, dir)
}

// CommitWork commits what is uncommitted in the work tree at dir: changed
// and deleted tracked files and new files git does not ignore, onto
// whatever HEAD is there (a branch or a detached HEAD). It returns the
// new commit, or "" when there was nothing to commit. The repository's
// hooks are not run: they are the person's checks of the person's
// commits, and a failing one must not strand the agent's work.
func CommitWork(ctx context.Context, dir, message string, author Author) (string, error) {
	if _, err := run(ctx, dir, "add", "--all"); err != nil {
		return "", err
	}
	if _, err := run(ctx, dir, "diff", "--cached", "--quiet"); err == nil {
		return "", nil
	}
	args := append(author.gitArgs(ctx, dir), "commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", message)
	if _, err := run(ctx, dir, args...); err != nil {
		return "", err
	}
	return line(ctx, dir, "rev-parse", "HEAD")
}

// ErrNothingToDeliver is returned by Deliver when the step's worktree
// holds no change that its base branch does not already have: accepting
// it would move nothing.
var ErrNothingToDeliver = errors.New("gitwork: nothing to deliver")

// ErrDiverged is returned by Deliver when the worktree's HEAD and the
// step's branch went separate ways (the agent switched branches and
// committed elsewhere): which one is the work is the person's call.
var ErrDiverged = errors.New("gitwork: the worktree's HEAD and the step's branch diverged")

// Delivery is what Deliver did.
type Delivery struct {
	Merged
	// Committed is the commit Deliver made of the uncommitted work, ""
	// when there was none.
	Committed string
	// Tip is the commit that holds the step's whole work: what merged.
	Tip string
	// Detached is set when the worktree's HEAD was not on the step's
	// branch (detached, or another branch checked out): the branch was
	// moved up to it first, so the work stays reachable.
	Detached bool
}

// DeliverOptions say how Deliver commits and merges.
type DeliverOptions struct {
	Mode MergeMode
	// CommitMessage is the message of the commit of uncommitted work;
	// MergeMessage that of a merge commit (and of the ref's reflog).
	CommitMessage, MergeMessage string
	Author                      Author
}

// Deliver brings everything the step's worktree holds into its base
// branch: it commits the uncommitted work where the worktree's HEAD is,
// moves the step's branch up to that HEAD when the agent committed on a
// detached HEAD or another branch (see Prepare), and merges the branch
// (see Merge). When the base branch already holds all of it, Deliver
// moves nothing: ErrNothingToDeliver when the step never added a commit
// to the base it started from, else Merged.Already (an earlier accept
// merged it).
func (r *Repo) Deliver(ctx context.Context, wt Worktree, o DeliverOptions) (Delivery, error) {
	d, err := r.Prepare(ctx, wt, o)
	if err != nil {
		return d, err
	}
	m, err := r.MergeAs(ctx, wt.Branch, wt.BaseBranch, o.Mode, o.MergeMessage, o.Author)
	d.Merged = m
	if err == nil && m.Already && wt.Base == "" {
		return d, ErrNothingToDeliver
	}
	return d, err
}

// Prepare makes the step's branch hold the step's whole work without
// merging it anywhere: what Deliver does before its merge, and all a
// delivery as a pull request needs before the branch is pushed. It
// commits the uncommitted work where the worktree's HEAD is and moves
// the branch up to that HEAD; ErrNothingToDeliver when the branch holds
// no commit beyond the base the step started from.
func (r *Repo) Prepare(ctx context.Context, wt Worktree, o DeliverOptions) (Delivery, error) {
	var d Delivery
	committed, err := CommitWork(ctx, wt.Path, o.CommitMessage, o.Author)
	if err != nil {
		return d, fmt.Errorf("commit the worktree's changes: %w", err)
	}
	d.Committed = committed
	head, err := line(ctx, wt.Path, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return d, fmt.Errorf("read the worktree's HEAD: %w", err)
	}
	tip, err := r.Resolve(ctx, "refs/heads/"+wt.Branch)
	if err != nil {
		return d, fmt.Errorf("deliver %s: %w", wt.Branch, ErrNoBranch)
	}
	if head != tip {
		if err := r.catchUp(ctx, wt.Branch, tip, head); err != nil {
			return d, err
		}
		if ahead, _ := r.IsAncestor(ctx, tip, head); ahead {
			tip, d.Detached = head, true
		}
	}
	d.Tip = tip
	if wt.Base != "" {
		if none, err := r.IsAncestor(ctx, tip, wt.Base); err != nil {
			return d, err
		} else if none {
			return d, ErrNothingToDeliver
		}
	}
	return d, nil
}

// catchUp moves branch from tip to head when head descends from it (the
// agent's commits on a detached HEAD or on a branch of its own); a branch
// that is ahead of head already holds the work. Anything else diverged.
func (r *Repo) catchUp(ctx context.Context, branch, tip, head string) error {
	if ahead, err := r.IsAncestor(ctx, tip, head); err != nil {
		return err
	} else if ahead {
		_, err := run(ctx, r.Top, "update-ref", "-m", "daokit: the worktree's HEAD", "refs/heads/"+branch, head, tip)
		return err
	}
	if behind, err := r.IsAncestor(ctx, head, tip); err != nil {
		return err
	} else if behind {
		return nil
	}
	return fmt.Errorf("%s at %.12s, HEAD at %.12s: %w", branch, tip, head, ErrDiverged)
}
