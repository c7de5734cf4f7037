package gitwork

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

func deliverOpts() DeliverOptions {
	return DeliverOptions{Mode: MergeFF, CommitMessage: "daokit: the work", MergeMessage: "accept", Author: Author{Name: "Ada", Email: "ada@example.com"}}
}

// TestDeliverCommitsUncommittedWork: an agent's edits and new files,
// never committed, reach the base branch in a commit by the configured
// author; ignored files stay out.
func TestDeliverCommitsUncommittedWork(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n"})
	r, wt := stepWorktree(t, dir)
	gittest.WriteFile(t, filepath.Join(wt.Path, "a.txt"), "edited\n")
	gittest.WriteFile(t, filepath.Join(wt.Path, "new/b.txt"), "new\n")
	gittest.WriteFile(t, filepath.Join(wt.Path, "debug.log"), "noise\n")
	d, err := r.Deliver(ctx, wt, deliverOpts())
	if err != nil {
		t.Fatal(err)
	}
	main := gittest.Git(t, dir, "rev-parse", "main")
	if d.Committed == "" || d.Commit != main || d.Commit == wt.Base || d.Already {
		t.Fatalf("Delivery %+v; main %s", d, main)
	}
	if got := gittest.Git(t, dir, "log", "-1", "--format=%an <%ae>|%s", "main"); got != "Ada <ada@example.com>|daokit: the work" {
		t.Errorf("main's tip: %q", got)
	}
	if files := gittest.Git(t, dir, "ls-tree", "-r", "--name-only", "main"); files != ".gitignore\na.txt\nnew/b.txt" {
		t.Errorf("main holds %q", files)
	}
	if _, err := r.Deliver(ctx, wt, deliverOpts()); err != nil {
		t.Errorf("a second accept of delivered work: %v", err)
	}
}

// TestDeliverTakesADetachedHead: commits an agent made after detaching
// HEAD are delivered, and the step's branch holds them afterwards.
func TestDeliverTakesADetachedHead(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r, wt := stepWorktree(t, dir)
	gittest.Git(t, wt.Path, "checkout", "--quiet", "--detach")
	c := commitIn(t, wt.Path, "a.txt", "on a detached head\n")
	gittest.WriteFile(t, filepath.Join(wt.Path, "b.txt"), "and left over\n")
	d, err := r.Deliver(ctx, wt, deliverOpts())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Detached || d.Committed == "" {
		t.Fatalf("Delivery %+v", d)
	}
	if gittest.Git(t, dir, "rev-parse", wt.Branch) != d.Tip || gittest.Git(t, dir, "rev-parse", "main") != d.Commit {
		t.Error("branch or main does not hold the worktree's HEAD")
	}
	if in, err := r.IsAncestor(ctx, c, "main"); err != nil || !in {
		t.Fatalf("the detached commit is not in main: %v %v", in, err)
	}
	if a := gittest.Git(t, dir, "show", "main:a.txt"); a != "on a detached head" {
		t.Errorf("main:a.txt = %q", a)
	}
}

// TestDeliverNothingMovesNothing: a worktree with no change is refused,
// not reported as merged; a HEAD that left the branch's line is too.
func TestDeliverNothingMovesNothing(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r, wt := stepWorktree(t, dir)
	main := gittest.Git(t, dir, "rev-parse", "main")
	if _, err := r.Deliver(ctx, wt, deliverOpts()); !errors.Is(err, ErrNothingToDeliver) {
		t.Fatalf("empty delivery: %v", err)
	}
	if gittest.Git(t, dir, "rev-parse", "main") != main {
		t.Fatal("main moved")
	}
	commitIn(t, wt.Path, "a.txt", "on the branch\n")
	gittest.Git(t, wt.Path, "checkout", "--quiet", "-b", "elsewhere", main)
	commitIn(t, wt.Path, "a.txt", "elsewhere\n")
	if _, err := r.Deliver(ctx, wt, deliverOpts()); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), wt.Branch) {
		t.Fatalf("diverged delivery: %v", err)
	}
	if gittest.Git(t, dir, "rev-parse", "main") != main {
		t.Fatal("main moved")
	}
}

func TestParseAuthor(t *testing.T) {
	if a, err := ParseAuthor("Ada Lovelace <ada@example.com>"); err != nil || a.String() != "Ada Lovelace <ada@example.com>" {
		t.Errorf("ParseAuthor = %+v, %v", a, err)
	}
	if a, err := ParseAuthor(""); err != nil || a != (Author{}) {
		t.Errorf("empty: %+v, %v", a, err)
	}
	for _, bad := range []string{"ada@example.com", "Ada", "Ada <a@b> x"} {
		if _, err := ParseAuthor(bad); err == nil {
			t.Errorf("ParseAuthor(%q) accepted", bad)
		}
	}
}

// TestDiffWorktreeShowsNewFilesAndLeavesTheIndex: the review's diff
// shows a file the agent created and never added (an accept delivers it),
// but not an ignored one, and leaves the agent's index as it was.
func TestDiffWorktreeShowsNewFilesAndLeavesTheIndex(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n"})
	base := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "edited\n")
	gittest.WriteFile(t, filepath.Join(dir, "new.txt"), "hidden?\n")
	gittest.WriteFile(t, filepath.Join(dir, "x.log"), "ignored\n")
	out, err := DiffWorktree(ctx, dir, base)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range Parse(out) {
		paths = append(paths, f.Path())
	}
	if strings.Join(paths, ",") != "a.txt,new.txt" {
		t.Errorf("diff shows %v", paths)
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "M a.txt\n?? new.txt" && st != "M a.txt\n?? new.txt\n" {
		t.Errorf("the index changed: %q", st)
	}
}

// TestDeliverWithoutAnIdentity: a repository (and machine) with no git
// identity still gets its delivery, written by DefaultAuthor.
func TestDeliverWithoutAnIdentity(t *testing.T) {
	ctx := context.Background()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	gittest.Git(t, dir, "config", "--unset", "user.name")
	gittest.Git(t, dir, "config", "--unset", "user.email")
	r, wt := stepWorktree(t, dir)
	gittest.WriteFile(t, filepath.Join(wt.Path, "a.txt"), "edited\n")
	o := deliverOpts()
	o.Author = Author{}
	d, err := r.Deliver(ctx, wt, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := gittest.Git(t, dir, "log", "-1", "--format=%an <%ae>", d.Committed); got != DefaultAuthor.String() {
		t.Errorf("author %q", got)
	}
}
