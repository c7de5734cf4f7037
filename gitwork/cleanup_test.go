package gitwork

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

func entryOf(t *testing.T, r *Repo, path string) Entry {
	t.Helper()
	entries, err := r.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if samePath(e.Path, path) {
			return e
		}
	}
	t.Fatalf("no worktree at %s in %+v", path, entries)
	return Entry{}
}

func TestRemoveRefusesDirtyOrUnmergedAndForceKeepsBranch(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	wt := stepWith(t, r, "S1", "a.txt", "work\n")
	gittest.WriteFile(t, filepath.Join(wt.Path, "scratch.txt"), "untracked\n")
	e := entryOf(t, r, wt.Path)
	err := r.Remove(ctx, e, "main", false)
	var ke *KeptError
	if !errors.As(err, &ke) || !errors.Is(err, ErrKept) || !slices.Equal(ke.Reasons, []Keep{KeepDirty, KeepUnmerged}) {
		t.Fatalf("Remove = %v, want kept: dirty, unmerged", err)
	}
	if _, err := os.Stat(wt.Path); err != nil {
		t.Fatal("the worktree is gone after a refused removal")
	}
	if err := r.Remove(ctx, e, "main", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("forced removal left the folder")
	}
	if _, err := r.Resolve(ctx, "refs/heads/"+wt.Branch); err != nil {
		t.Error("forced removal deleted the branch")
	}
}

func TestPruneRemovesOnlyWhatLosesNothing(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	merged := stepWith(t, r, "S1", "a.txt", "accepted\n")
	if _, err := r.Merge(ctx, merged.Branch, "main", MergeFF, "accept"); err != nil {
		t.Fatal(err)
	}
	unmerged := stepWith(t, r, "S2", "b.txt", "not yet\n")
	pushed := stepWith(t, r, "S3", "c.txt", "pushed\n")
	// A remote-tracking ref that contains S3 makes it pushed.
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/S3", pushed.Branch)
	dirty := stepWith(t, r, "S4", "d.txt", "d\n")
	if _, err := r.Merge(ctx, dirty.Branch, "main", MergeFF, "accept"); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, filepath.Join(dirty.Path, "d.txt"), "edited after\n")
	gittest.Git(t, dir, "branch", "other") // not ours: never listed
	res, err := r.Prune(ctx, OwnedBy("daokit", ""), func(Entry) string { return "main" }, false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Pruned{}
	for _, p := range res {
		got[p.Entry.Branch] = p
	}
	if len(got) != 4 {
		t.Fatalf("Prune looked at %d worktrees, want 4: %+v", len(got), res)
	}
	for branch, want := range map[string]bool{merged.Branch: true, pushed.Branch: true, unmerged.Branch: false, dirty.Branch: false} {
		if got[branch].Removed != want {
			t.Errorf("%s removed = %v, want %v (%+v)", branch, got[branch].Removed, want, got[branch])
		}
	}
	if k := got[unmerged.Branch].Kept; !slices.Equal(k, []Keep{KeepUnmerged}) {
		t.Errorf("unmerged kept for %v", k)
	}
	if k := got[dirty.Branch].Kept; !slices.Equal(k, []Keep{KeepDirty}) {
		t.Errorf("dirty kept for %v", k)
	}
	forced, err := r.Prune(ctx, OwnedBy("daokit", ""), func(Entry) string { return "main" }, true)
	if err != nil || len(forced) != 2 || !forced[0].Removed || !forced[1].Removed {
		t.Fatalf("forced prune = %+v, %v", forced, err)
	}
	for _, b := range []string{merged.Branch, unmerged.Branch, pushed.Branch, dirty.Branch} {
		if _, err := r.Resolve(ctx, "refs/heads/"+b); err != nil {
			t.Errorf("branch %s deleted", b)
		}
	}
}

// TestPruneKeepsIgnoredWorkAndIsNotFooledByExcludes: a merged worktree
// holding an ignored file (a .env, a build an agent made) is kept; a
// step that writes `*` into the repository's shared info/exclude cannot
// make prune delete another step's new files; --force still removes.
func TestPruneKeepsIgnoredWorkAndIsNotFooledByExcludes(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.env\n"})
	r := openT(t, dir)
	ignored := stepWith(t, r, "S1", "a.txt", "one\n")
	victim := stepWith(t, r, "S2", "b.txt", "two\n")
	for _, w := range []Worktree{ignored, victim} {
		if _, err := r.Merge(ctx, w.Branch, "main", MergeFF, "accept"); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, w.Path, "merge", "--quiet", "--ff-only", "main")
	}
	gittest.WriteFile(t, filepath.Join(ignored.Path, "secrets.env"), "TOKEN=1\n")
	gittest.WriteFile(t, filepath.Join(victim.Path, "new/work.go"), "package work\n")
	// The hostile step: every file is now "ignored" in every worktree.
	gittest.WriteFile(t, filepath.Join(dir, ".git", "info", "exclude"), "*\n")
	if st := gittest.Git(t, victim.Path, "status", "--porcelain"); st != "" {
		t.Fatalf("the exclude file does not hide the work from git status (%q): the test proves nothing", st)
	}
	res, err := r.Prune(ctx, OwnedBy("daokit", ""), func(Entry) string { return "main" }, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("Prune looked at %+v", res)
	}
	for _, p := range res {
		if p.Removed || !slices.Equal(p.Kept, []Keep{KeepDirty}) {
			t.Errorf("%s: %+v, want kept as dirty", p.Entry.Path, p)
		}
	}
	if got := readFile(t, filepath.Join(victim.Path, "new/work.go")); got != "package work\n" {
		t.Errorf("work.go = %q", got)
	}
	forced, err := r.Prune(ctx, OwnedBy("daokit", ""), func(Entry) string { return "main" }, true)
	if err != nil || len(forced) != 2 || !forced[0].Removed || !forced[1].Removed {
		t.Fatalf("forced prune = %+v, %v", forced, err)
	}
}

// TestPruneListsDetachedAndSwitchedWorktrees: a step worktree whose
// agent detached HEAD (with a commit only that HEAD holds) or switched to
// a branch of its own is still the ledger's, found by its folder, and
// kept while it holds unmerged work.
func TestPruneListsDetachedAndSwitchedWorktrees(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r := openT(t, dir)
	wts := t.TempDir()
	detached, err := r.Ensure(ctx, filepath.Join(wts, "T", "R", "S1"), BranchName("daokit", "T", "R", "S1"), "main")
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, detached.Path, "checkout", "--quiet", "--detach")
	lone := commitIn(t, detached.Path, "a.txt", "only on a detached HEAD\n")
	switched, err := r.Ensure(ctx, filepath.Join(wts, "T", "R", "S2"), BranchName("daokit", "T", "R", "S2"), "main")
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, switched.Path, "checkout", "--quiet", "-b", "agent-branch")
	commitIn(t, switched.Path, "b.txt", "on the agent's branch\n")
	res, err := r.Prune(ctx, OwnedBy("daokit", wts), func(Entry) string { return "main" }, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("Prune looked at %d worktrees, want the detached and the switched one: %+v", len(res), res)
	}
	for _, p := range res {
		if p.Removed || !slices.Equal(p.Kept, []Keep{KeepUnmerged}) {
			t.Errorf("%s (branch %q): %+v, want kept as unmerged", p.Entry.Path, p.Entry.Branch, p)
		}
	}
	if err := r.Remove(ctx, Entry{Path: detached.Path, Branch: detached.Branch}, "main", false); !errors.Is(err, ErrKept) {
		t.Errorf("Remove of the detached worktree by its recorded branch: %v", err)
	}
	if _, err := r.Resolve(ctx, lone); err != nil {
		t.Fatal(err)
	}
}
