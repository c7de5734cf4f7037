package gitwork

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

// TestUnchangedAgreesWithDeliver: Unchanged says a worktree holds no
// change exactly when accepting it would deliver nothing, whatever the
// agent did (edits, new files, ignored files, commits on the branch or a
// detached HEAD, a commit undone, refs packed, the base moving on).
func TestUnchangedAgreesWithDeliver(t *testing.T) {
	cases := []struct {
		name string
		do   func(t *testing.T, dir, wt string)
		want bool
	}{
		{"untouched", func(*testing.T, string, string) {}, true},
		{"an ignored file", func(t *testing.T, _, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "build/out.log"), "noise\n")
		}, true},
		{"a file rewritten as it was", func(t *testing.T, _, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "a\n")
		}, true},
		{"the base moved on", func(t *testing.T, dir, _ string) { commitIn(t, dir, "c.txt", "c\n") }, true},
		{"refs packed", func(t *testing.T, dir, _ string) { gittest.Git(t, dir, "pack-refs", "--all") }, true},
		{"a commit undone", func(t *testing.T, _, wt string) {
			commitIn(t, wt, "b.txt", "b\n")
			gittest.Git(t, wt, "reset", "--quiet", "--hard", "HEAD~1")
		}, true},
		{"an edit", func(t *testing.T, _, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "edited\n")
		}, false},
		{"an edit of the same size", func(t *testing.T, _, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "b\n")
		}, false},
		{"a deletion", func(t *testing.T, _, wt string) {
			if err := os.Remove(filepath.Join(wt, "a.txt")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a new file", func(t *testing.T, _, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "new/b.txt"), "new\n")
		}, false},
		{"a commit", func(t *testing.T, _, wt string) { commitIn(t, wt, "b.txt", "b\n") }, false},
		{"a commit, refs packed", func(t *testing.T, dir, wt string) {
			commitIn(t, wt, "b.txt", "b\n")
			gittest.Git(t, dir, "pack-refs", "--all")
		}, false},
		{"a commit on a detached HEAD", func(t *testing.T, _, wt string) {
			gittest.Git(t, wt, "checkout", "--quiet", "--detach")
			commitIn(t, wt, "b.txt", "b\n")
		}, false},
		{"a commit, then HEAD detached at the base", func(t *testing.T, _, wt string) {
			base := gittest.Git(t, wt, "rev-parse", "HEAD")
			commitIn(t, wt, "b.txt", "b\n")
			gittest.Git(t, wt, "checkout", "--quiet", "--detach", base)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "build/\n"})
			r, wt := stepWorktree(t, dir)
			tc.do(t, dir, wt.Path)
			got, err := r.Unchanged(ctx, wt)
			if err != nil || got != tc.want {
				t.Fatalf("Unchanged = %v, %v; want %v", got, err, tc.want)
			}
			_, err = r.Deliver(ctx, wt, deliverOpts())
			if nothing := errors.Is(err, ErrNothingToDeliver); nothing != tc.want {
				t.Fatalf("Deliver: %v; Unchanged said %v", err, got)
			}
		})
	}
}

// TestUnchangedWithoutABase: a worktree whose base was never recorded
// is never called unchanged: a person decides.
func TestUnchangedWithoutABase(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	r, wt := stepWorktree(t, dir)
	wt.Base = ""
	if got, err := r.Unchanged(ctx, wt); got || err != nil {
		t.Fatalf("Unchanged = %v, %v", got, err)
	}
}

// TestUnchangedSeesFilesTheSharedExcludeHides: an agent that writes `*`
// into the repository's shared info/exclude hides every new file from
// git status, in every worktree; those files are still a change (the
// person reviews them), whereas the project's own .gitignore is
// trusted.
func TestUnchangedSeesFilesTheSharedExcludeHides(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", ".gitignore": "build/\n"})
	r, wt := stepWorktree(t, dir)
	exclude := filepath.Join(gittest.Git(t, wt.Path, "rev-parse", "--path-format=absolute", "--git-common-dir"), "info", "exclude")
	gittest.WriteFile(t, exclude, "*\n")
	gittest.WriteFile(t, filepath.Join(wt.Path, "build/out"), "built\n")
	if got, err := r.Unchanged(ctx, wt); !got || err != nil {
		t.Fatalf("build output the project ignores: Unchanged = %v, %v", got, err)
	}
	gittest.WriteFile(t, filepath.Join(wt.Path, "new/b.txt"), "new\n")
	if st := gittest.Git(t, wt.Path, "status", "--porcelain"); st != "" {
		t.Fatalf("the exclude file does not hide the file (%q): the test proves nothing", st)
	}
	if got, err := r.Unchanged(ctx, wt); got || err != nil {
		t.Fatalf("a hidden new file: Unchanged = %v, %v", got, err)
	}
}

// TestUnchangedStartsNoGitForAnUntouchedTree: the common answers come
// from the worktree's index and ref files: with no git to be found, an
// untouched worktree (and one whose tracked file changed size) is still
// judged, so a step's check costs the loop no git process.
func TestUnchangedStartsNoGitForAnUntouchedTree(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	r, wt := stepWorktree(t, dir)
	gittest.Git(t, wt.Path, "status") // refreshes the index: no racily clean entry
	t.Setenv("PATH", t.TempDir())
	if got, err := r.Unchanged(ctx, wt); !got || err != nil {
		t.Fatalf("untouched: Unchanged = %v, %v", got, err)
	}
	gittest.WriteFile(t, filepath.Join(wt.Path, "a.txt"), "a longer line\n")
	if got, err := r.Unchanged(ctx, wt); got || err != nil {
		t.Fatalf("edited: Unchanged = %v, %v", got, err)
	}
}

// BenchmarkUnchanged measures the check of an untouched worktree of a
// repository of 200 files, as a step that changed nothing costs it.
func BenchmarkUnchanged(b *testing.B) {
	dir := newBigRepo(b, 200)
	r := openT(b, dir)
	ctx := context.Background()
	wt, err := r.Ensure(ctx, filepath.Join(b.TempDir(), "S1"), BranchName("daokit", "T", "R", "S1"), "main")
	if err != nil {
		b.Fatal(err)
	}
	gittest.Git(b, wt.Path, "status")
	b.Setenv("PATH", b.TempDir()) // no git process: see TestUnchangedStartsNoGitForAnUntouchedTree
	for b.Loop() {
		if same, err := r.Unchanged(ctx, wt); !same || err != nil {
			b.Fatalf("Unchanged = %v, %v", same, err)
		}
	}
}
