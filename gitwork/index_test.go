package gitwork

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
)

// TestWorktreeStateReadsEveryIndexVersion: the in-process check agrees
// with git on a clean tree, an edit, a new file, an ignored file and a
// deleted file, for index versions 2, 3 and 4.
func TestWorktreeStateReadsEveryIndexVersion(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "d/e/c.txt": "c\n", ".gitignore": "*.log\n"})
			gittest.Git(t, dir, "update-index", "--index-version", v)
			if v == "3" {
				gittest.Git(t, dir, "update-index", "--skip-worktree", "d/e/c.txt")
				gittest.Git(t, dir, "update-index", "--no-skip-worktree", "d/e/c.txt")
			}
			settle(t, dir)
			if s := worktreeState(dir); s != treeClean {
				t.Fatalf("clean tree: state %d", s)
			}
			for name, change := range map[string]func(){
				"edit":    func() { gittest.WriteFile(t, filepath.Join(dir, "d/b.txt"), "longer b\n") },
				"new":     func() { gittest.WriteFile(t, filepath.Join(dir, "d/e/new.txt"), "n\n") },
				"ignored": func() { gittest.WriteFile(t, filepath.Join(dir, "deep/x.log"), "log\n") },
				"deleted": func() { _ = os.Remove(filepath.Join(dir, "d/e/c.txt")) },
			} {
				change()
				if s := worktreeState(dir); s != treeDirty {
					t.Errorf("%s: state %d, want dirty", name, s)
				}
				gittest.Git(t, dir, "checkout", "--quiet", "--", ".")
				gittest.Git(t, dir, "clean", "-qfdx")
				settle(t, dir)
				if s := worktreeState(dir); s != treeClean {
					t.Fatalf("after undoing %s: state %d", name, s)
				}
			}
		})
	}
}

// TestCheckAsksGitWhenUnsure: an edit that keeps the file's size is only
// a changed time to the index reader; git then decides, and a file that
// was merely touched keeps nothing.
func TestCheckAsksGitWhenUnsure(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "aaa\n"})
	r := openT(t, dir)
	settle(t, dir)
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if s := worktreeState(dir); s != treeUnsure {
		t.Fatalf("touched: state %d", s)
	}
	main := Entry{Path: dir, Branch: "main"}
	if k := r.Check(ctx, main, "main"); len(k) != 0 {
		t.Errorf("a touched file keeps %v", k)
	}
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "bbb\n")
	if err := os.Chtimes(filepath.Join(dir, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if k := r.Check(ctx, main, "main"); len(k) != 1 || k[0] != KeepDirty {
		t.Errorf("a same-size edit keeps %v", k)
	}
}

// settle makes the index newer than every file, as it is once a
// worktree is not brand new: git refreshes the index's records, and the
// files' times are moved a little into the past, so no record is racy.
func settle(t *testing.T, dir string) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.ModTime().After(past) && !strings.HasPrefix(p, filepath.Join(dir, ".git")) {
			_ = os.Chtimes(p, past, past)
		}
		return nil
	})
	gittest.Git(t, dir, "update-index", "--refresh", "--really-refresh")
	gittest.Git(t, dir, "status", "--porcelain")
}
