package gitwork

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

func openT(tb testing.TB, dir string) *Repo {
	tb.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		tb.Fatalf("open %s: %v", dir, err)
	}
	return r
}

// commitIn edits path in the work tree at dir and commits it.
func commitIn(tb testing.TB, dir, path, content string) string {
	tb.Helper()
	gittest.WriteFile(tb, filepath.Join(dir, path), content)
	c, err := CommitAll(context.Background(), dir, "edit "+path)
	if err != nil || c == "" {
		tb.Fatalf("commit in %s: %q %v", dir, c, err)
	}
	return c
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// stepWorktree opens the repository in dir and makes step S1's worktree
// of its main branch, as the controller does for a step.
func stepWorktree(tb testing.TB, dir string) (*Repo, Worktree) {
	tb.Helper()
	r := openT(tb, dir)
	wt, err := r.Ensure(context.Background(), filepath.Join(tb.TempDir(), "S1"), BranchName("daokit", "T", "R", "S1"), "main")
	if err != nil {
		tb.Fatal(err)
	}
	return r, wt
}
