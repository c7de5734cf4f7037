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
	res, err := r.Prune(ctx, "daokit", func(Entry) string { return "main" }, false)
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
	forced, err := r.Prune(ctx, "daokit", func(Entry) string { return "main" }, true)
	if err != nil || len(forced) != 2 || !forced[0].Removed || !forced[1].Removed {
		t.Fatalf("forced prune = %+v, %v", forced, err)
	}
	for _, b := range []string{merged.Branch, unmerged.Branch, pushed.Branch, dirty.Branch} {
		if _, err := r.Resolve(ctx, "refs/heads/"+b); err != nil {
			t.Errorf("branch %s deleted", b)
		}
	}
}
