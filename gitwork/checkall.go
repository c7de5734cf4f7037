package gitwork

import (
	"bufio"
	"bytes"
	"context"
	"strings"
)

// CheckAll is Check for each of entries (baseOf names the branch each
// merges into), at a cost that does not grow by a git process per
// worktree: the files are compared with each worktree's index in process
// (see worktreeState; git runs only for a tree it cannot judge), and
// whether the commits are held elsewhere is asked once per base branch.
func (r *Repo) CheckAll(ctx context.Context, entries []Entry, baseOf func(Entry) string) [][]Keep {
	out := make([][]Keep, len(entries))
	for i, e := range entries {
		switch worktreeState(e.Path) {
		case treeDirty:
			out[i] = []Keep{KeepDirty}
		case treeUnsure:
			out[i] = r.statusKeep(ctx, e.Path)
		}
	}
	for i := range r.unreachable(ctx, entries, baseOf) {
		out[i] = append(out[i], KeepUnmerged)
	}
	return out
}

// statusKeep asks git whether the worktree at path holds work: changes,
// untracked files and ignored ones (which nothing else holds either).
func (r *Repo) statusKeep(ctx context.Context, path string) []Keep {
	out, err := run(ctx, path, "status", "--porcelain", "--untracked-files=normal", "--ignored=matching")
	switch {
	case err != nil:
		return []Keep{KeepMissing}
	case len(bytes.TrimSpace(out)) > 0:
		return []Keep{KeepDirty}
	}
	return nil
}

// unreachable returns the indexes of the entries whose HEAD commit
// nothing else holds: for a worktree on a branch, neither its base branch
// nor a remote-tracking branch; for a detached one (or one whose HEAD
// git could not read), no branch and no remote. One `git rev-list` per
// base branch: it prints the commits reachable from the heads and from
// none of the others, so a head it prints would be lost.
func (r *Repo) unreachable(ctx context.Context, entries []Entry, baseOf func(Entry) string) map[int]bool {
	entries = append([]Entry(nil), entries...)
	groups := map[string][]int{} // the exclusions → entries
	for i, e := range entries {
		if e.Head == "" {
			if h, err := line(ctx, e.Path, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
				e.Head, entries[i].Head = h, h
			} else {
				continue // nothing to lose; Check reports the folder
			}
		}
		not := "--branches"
		if e.Branch != "" {
			not = ""
			if b := baseOf(e); b != "" {
				not = "refs/heads/" + b
			}
		}
		groups[not] = append(groups[not], i)
	}
	lost := map[int]bool{}
	for not, idx := range groups {
		args := []string{"rev-list"}
		for _, i := range idx {
			args = append(args, entries[i].Head)
		}
		args = append(args, "--not", "--remotes")
		if not != "" {
			args = append(args, not)
		}
		out, err := run(ctx, r.Top, args...)
		if err != nil {
			for _, i := range idx {
				lost[i] = true // unknown: keep rather than guess
			}
			continue
		}
		printed := map[string]bool{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			printed[strings.TrimSpace(sc.Text())] = true
		}
		for _, i := range idx {
			if printed[entries[i].Head] {
				lost[i] = true
			}
		}
	}
	return lost
}
