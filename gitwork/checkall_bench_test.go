package gitwork

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

// keptWorktrees makes n step worktrees of a repository of files files, each
// with an unmerged commit and half of them with an uncommitted edit: what
// `daokit status` and `daokit worktrees` look at once many steps were
// kept.
func keptWorktrees(b *testing.B, n, files int) (*Repo, []Entry) {
	dir := newBigRepo(b, files)
	r := openT(b, dir)
	ctx := context.Background()
	wts := b.TempDir()
	for i := range n {
		is := strconv.Itoa(i)
		wt, err := r.Ensure(ctx, filepath.Join(wts, "S"+is), BranchName("daokit", "T", "R", "S"+is), "main")
		if err != nil {
			b.Fatal(err)
		}
		commitIn(b, wt.Path, "step.txt", is+"\n")
		if i%2 == 0 {
			gittest.WriteFile(b, filepath.Join(wt.Path, "d00", "f00000.go"), "package d\n// edited "+is+"\n")
		}
	}
	entries, err := r.List(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return r, entries[1:]
}

// BenchmarkCheckKept measures why-kept checks of 100 kept worktrees (as
// `daokit status` and `daokit worktrees` make them), of a repository of
// 1 and of 200 files: ns/op for all of them, and per-tree-ms the cost per
// worktree. Before CheckAll, each worktree cost three git processes
// (status, merge-base, branch --contains).
func BenchmarkCheckKept(b *testing.B) {
	for _, files := range []int{1, 200} {
		b.Run("files="+strconv.Itoa(files), func(b *testing.B) { benchCheckKept(b, files) })
	}
}

func benchCheckKept(b *testing.B, files int) {
	const n = 100
	r, entries := keptWorktrees(b, n, files)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		kept := r.CheckAll(ctx, entries, func(Entry) string { return "main" })
		for i, k := range kept {
			j, _ := strconv.Atoi(filepath.Base(entries[i].Path)[1:])
			if len(k) == 0 || (j%2 == 0) != (len(k) == 2) {
				b.Fatalf("worktree %s: %v", entries[i].Path, k)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/n, "per-tree-ms")
}
