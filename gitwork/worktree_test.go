package gitwork

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

func TestOpenFindsTopAndRefusesIgnoredOrOutside(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "/demo/\n", "sub/b.txt": "b\n"})
	r := openT(t, filepath.Join(dir, "sub"))
	if r.Rel != "sub" {
		t.Errorf("Rel = %q, want sub", r.Rel)
	}
	if err := os.MkdirAll(filepath.Join(dir, "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, filepath.Join(dir, "demo")); !errors.Is(err, ErrNotRepo) {
		t.Errorf("ignored folder: err = %v, want ErrNotRepo", err)
	}
	if _, err := Open(ctx, t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("outside: err = %v, want ErrNotRepo", err)
	}
}

func TestTwoStepsGetSeparateWorktrees(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	base := gittest.Git(t, dir, "rev-parse", "HEAD")
	wts := t.TempDir()
	var got [2]Worktree
	for i, step := range []string{"S1", "S2"} {
		wt, err := r.Ensure(ctx, filepath.Join(wts, step), BranchName("daokit/", "T1", "R1", step), "main")
		if err != nil {
			t.Fatal(err)
		}
		if wt.Reused || wt.Base != base || wt.Branch != "daokit/T1/R1/"+step {
			t.Fatalf("worktree %d = %+v, want a new one on daokit/T1/R1/%s from %s", i, wt, step, base)
		}
		got[i] = wt
	}
	commitIn(t, got[0].Path, "a.txt", "from S1\n")
	commitIn(t, got[1].Path, "b.txt", "from S2\n")
	if s := readFile(t, filepath.Join(got[1].Path, "a.txt")); s != "a\n" {
		t.Errorf("S2 sees S1's edit: a.txt = %q", s)
	}
	if _, err := os.Stat(filepath.Join(got[0].Path, "b.txt")); err == nil {
		t.Error("S1 sees S2's new file")
	}
	if s := readFile(t, filepath.Join(dir, "a.txt")); s != "a\n" {
		t.Errorf("the base work tree changed: %q", s)
	}
	entries, err := r.List(ctx)
	if err != nil || len(entries) != 3 {
		t.Fatalf("List = %+v, %v; want main + 2", entries, err)
	}
}

func TestEnsureReusesWorktreeAndBranch(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	path := filepath.Join(t.TempDir(), "S1")
	first, err := r.Ensure(ctx, path, "daokit/T/R/S1", "main")
	if err != nil {
		t.Fatal(err)
	}
	commitIn(t, path, "a.txt", "work\n")
	again, err := r.Ensure(ctx, path, "daokit/T/R/S1", "main")
	if err != nil || !again.Reused || again.Base != first.Base {
		t.Fatalf("second Ensure = %+v, %v; want reused with base %s", again, err, first.Base)
	}
	// The folder vanished (a person deleted it): the branch is checked out
	// again, with its commit.
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	third, err := r.Ensure(ctx, path, "daokit/T/R/S1", "main")
	if err != nil || !third.Reused {
		t.Fatalf("after rm: %+v, %v", third, err)
	}
	if s := readFile(t, filepath.Join(path, "a.txt")); s != "work\n" {
		t.Errorf("a.txt = %q, want the step's commit", s)
	}
	entries, _ := r.List(ctx)
	if len(entries) != 2 {
		t.Errorf("%d worktrees, want 2 (no second one): %+v", len(entries), entries)
	}
}

func TestEnsureNeverTakesAForeignFolder(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	path := t.TempDir() // exists, not a worktree
	if _, err := r.Ensure(context.Background(), path, "daokit/T/R/S1", "main"); !errors.Is(err, ErrPathTaken) {
		t.Fatalf("err = %v, want ErrPathTaken", err)
	}
}

func TestEnsureUnknownBase(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	_, err := r.Ensure(context.Background(), filepath.Join(t.TempDir(), "w"), "daokit/T/R/S1", "nope")
	if !errors.Is(err, ErrNoBranch) {
		t.Fatalf("err = %v, want ErrNoBranch", err)
	}
	if _, err := r.BaseBranch(context.Background(), "nope"); !errors.Is(err, ErrNoBranch) {
		t.Fatalf("BaseBranch err = %v", err)
	}
	if b, err := r.BaseBranch(context.Background(), ""); err != nil || b != "main" {
		t.Fatalf("BaseBranch = %q, %v; want main", b, err)
	}
}

func TestValidBranch(t *testing.T) {
	if !validBranch(context.Background(), BranchName("daokit", "T-1", "R.2", "S_3")) {
		t.Error("a plain name is refused")
	}
	if validBranch(context.Background(), BranchName("daokit", "a..b", "R", "S")) {
		t.Error("'..' is accepted")
	}
}

// validBranch reports whether name is a branch name git accepts.
func validBranch(ctx context.Context, name string) bool {
	_, err := run(ctx, ".", "check-ref-format", "--branch", name)
	return err == nil
}
