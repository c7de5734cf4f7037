package gitwork

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

// stepWith makes a step's worktree on dir's main with one commit.
func stepWith(t *testing.T, r *Repo, step, path, content string) Worktree {
	t.Helper()
	wt, err := r.Ensure(context.Background(), filepath.Join(t.TempDir(), step), BranchName("daokit", "T", "R", step), "main")
	if err != nil {
		t.Fatal(err)
	}
	commitIn(t, wt.Path, path, content)
	return wt
}

func TestMergeFastForwardsCheckedOutBase(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	wt := stepWith(t, r, "S1", "a.txt", "changed\n")
	m, err := r.Merge(context.Background(), wt.Branch, "main", MergeFF, "accept S1")
	if err != nil || !m.FastForward {
		t.Fatalf("Merge = %+v, %v", m, err)
	}
	if s := readFile(t, filepath.Join(dir, "a.txt")); s != "changed\n" {
		t.Errorf("base work tree a.txt = %q, want the step's change", s)
	}
	if again, err := r.Merge(context.Background(), wt.Branch, "main", MergeFF, "again"); err != nil || !again.Already {
		t.Errorf("second Merge = %+v, %v; want Already", again, err)
	}
}

func TestMergeCommitWhenBaseMovedOrNoFF(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r := openT(t, dir)
	s1 := stepWith(t, r, "S1", "a.txt", "S1\n")
	s2 := stepWith(t, r, "S2", "b.txt", "S2\n")
	if _, err := r.Merge(ctx, s1.Branch, "main", MergeFFOnly, "accept S1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Merge(ctx, s2.Branch, "main", MergeFFOnly, "accept S2"); !errors.Is(err, ErrNotFastForward) {
		t.Fatalf("ff-only after the base moved: err = %v", err)
	}
	m, err := r.Merge(ctx, s2.Branch, "main", MergeFF, "accept S2")
	if err != nil || m.FastForward {
		t.Fatalf("Merge = %+v, %v; want a merge commit", m, err)
	}
	if parents := gittest.Git(t, dir, "rev-list", "--parents", "-n1", "main"); len(parents) != 3*40+2 {
		t.Errorf("main's tip is not a merge: %q", parents)
	}
	if a, b := readFile(t, filepath.Join(dir, "a.txt")), readFile(t, filepath.Join(dir, "b.txt")); a != "S1\n" || b != "S2\n" {
		t.Errorf("a=%q b=%q; want both steps", a, b)
	}
	s3 := stepWith(t, r, "S3", "c.txt", "S3\n")
	if m, err := r.Merge(ctx, s3.Branch, "main", MergeNoFF, "accept S3"); err != nil || m.FastForward {
		t.Fatalf("no-ff = %+v, %v", m, err)
	}
	if msg := gittest.Git(t, dir, "log", "-1", "--format=%s", "main"); msg != "accept S3" {
		t.Errorf("merge message %q", msg)
	}
}

func TestMergeConflictIsReportedAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	s1 := stepWith(t, r, "S1", "a.txt", "one\n")
	s2 := stepWith(t, r, "S2", "a.txt", "two\n")
	if _, err := r.Merge(ctx, s1.Branch, "main", MergeFF, "accept S1"); err != nil {
		t.Fatal(err)
	}
	before := gittest.Git(t, dir, "rev-parse", "main")
	_, err := r.Merge(ctx, s2.Branch, "main", MergeFF, "accept S2")
	var ce *ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || len(ce.Files) != 1 || ce.Files[0] != "a.txt" {
		t.Fatalf("err = %v, want a conflict in a.txt", err)
	}
	if after := gittest.Git(t, dir, "rev-parse", "main"); after != before {
		t.Error("a conflicting merge moved main")
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" || readFile(t, filepath.Join(dir, "a.txt")) != "one\n" {
		t.Errorf("the base work tree was touched: %q", st)
	}
}

func TestMergeIntoBranchNotCheckedOut(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	gittest.Git(t, dir, "branch", "release")
	r := openT(t, dir)
	wt, err := r.Ensure(ctx, filepath.Join(t.TempDir(), "S1"), "daokit/T/R/S1", "release")
	if err != nil {
		t.Fatal(err)
	}
	tip := commitIn(t, wt.Path, "a.txt", "x\n")
	if _, err := r.Merge(ctx, wt.Branch, "release", MergeFF, "accept"); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, dir, "rev-parse", "release"); got != tip {
		t.Errorf("release = %s, want %s", got, tip)
	}
	if readFile(t, filepath.Join(dir, "a.txt")) != "a\n" {
		t.Error("main's work tree changed")
	}
}

func TestMergeRefusesToOverwriteUncommittedWork(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	wt := stepWith(t, r, "S1", "a.txt", "step\n")
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "mine, not committed\n")
	if _, err := r.Merge(context.Background(), wt.Branch, "main", MergeFF, "accept"); err == nil {
		t.Fatal("merge overwrote the person's uncommitted edit")
	}
	if readFile(t, filepath.Join(dir, "a.txt")) != "mine, not committed\n" {
		t.Error("the person's edit is gone")
	}
}
