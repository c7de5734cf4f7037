package gitwork

import (
	"bufio"
	"bytes"
	"context"
	"strings"
)

// Entry is one worktree as `git worktree list --porcelain` describes it.
type Entry struct {
	Path string
	// Head is the commit checked out.
	Head string
	// Branch is the short branch name, "" when detached.
	Branch string
	Bare   bool
	Locked bool
	// Prunable is set when git knows the worktree's folder is gone.
	Prunable bool
}

// List returns the repository's worktrees, the main one first.
func (r *Repo) List(ctx context.Context) ([]Entry, error) {
	out, err := run(ctx, r.Top, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	return ParseList(out), nil
}

// ParseList reads the output of `git worktree list --porcelain`: blocks
// of "key value" lines separated by blank lines. Unknown keys are
// ignored, as git's documentation asks of porcelain readers.
func ParseList(out []byte) []Entry {
	var entries []Entry
	var cur *Entry
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), " ")
		if key == "worktree" {
			entries = append(entries, Entry{Path: value})
			cur = &entries[len(entries)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = value
		case "branch":
			cur.Branch = strings.TrimPrefix(value, "refs/heads/")
		case "bare":
			cur.Bare = true
		case "locked":
			cur.Locked = true
		case "prunable":
			cur.Prunable = true
		case "":
			cur = nil
		}
	}
	return entries
}

// checkedOut returns the worktree where branch is checked out.
func checkedOut(entries []Entry, branch string) (Entry, bool) {
	for _, e := range entries {
		if e.Branch == branch && !e.Prunable {
			return e, true
		}
	}
	return Entry{}, false
}
