package gitwork

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/gittest"
)

// benchFiles is the size of the repository the worktree goal speaks of.
const benchFiles = 10000

// newBigRepo makes a repository of n small files in 100 folders.
func newBigRepo(b *testing.B, n int) string {
	files := make(map[string]string, n)
	for i := range n {
		files[fmt.Sprintf("d%02d/f%05d.go", i%100, i)] = "package d\n\n// " + strconv.Itoa(i) + "\n"
	}
	return gittest.NewRepo(b, files)
}

// BenchmarkWorktreeCreate measures what creating a step's worktree costs on
// a repository of 10,000 files: "git-ms/op" is `git worktree add` itself
// (the floor, run directly), "ensure-ms/op" is Ensure doing the same job,
// and "added-ms/op" the difference (goal: under 300 ms). The two alternate
// within each iteration, so both see the same disk cache.
func BenchmarkWorktreeCreate(b *testing.B) {
	dir := newBigRepo(b, benchFiles)
	r := openT(b, dir)
	ctx := context.Background()
	base := gittest.Git(b, dir, "rev-parse", "HEAD")
	wts := b.TempDir()
	var floor, ours time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		is := strconv.Itoa(i)
		rawAdd := func() {
			if _, err := run(ctx, dir, "worktree", "add", "--quiet", "-b", "raw/"+is, filepath.Join(wts, "raw"+is), base); err != nil {
				b.Fatal(err)
			}
		}
		ensure := func() {
			if _, err := r.Ensure(ctx, filepath.Join(wts, "step"+is), BranchName("daokit", "T", "R", "S"+is), "main"); err != nil {
				b.Fatal(err)
			}
		}
		// Alternate which goes first, so neither always pays a colder cache.
		if i%2 == 0 {
			floor += timed(rawAdd)
			ours += timed(ensure)
		} else {
			ours += timed(ensure)
			floor += timed(rawAdd)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(floor.Microseconds())/1000/n, "git-ms/op")
	b.ReportMetric(float64(ours.Microseconds())/1000/n, "ensure-ms/op")
	b.ReportMetric(float64((ours-floor).Microseconds())/1000/n, "added-ms/op")
}

func timed(f func()) time.Duration {
	t := time.Now()
	f()
	return time.Since(t)
}

// BenchmarkParse5000 reads a 5,000-line unified diff (the size the
// changes view's goal speaks of).
func BenchmarkParse5000(b *testing.B) {
	data := syntheticDiff(50, 100)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if fs := Parse(data); len(fs) != 50 || fs[49].Added != 33 {
			b.Fatal("parse")
		}
	}
}

// syntheticDiff is a diff of files files with one hunk of hunkLines
// lines each (a third context, a third removed, a third added).
func syntheticDiff(files, hunkLines int) []byte {
	var out []byte
	for f := range files {
		p := fmt.Sprintf("pkg/f%03d.go", f)
		var body []byte
		oldN, newN := 0, 0
		for i := range hunkLines {
			switch i % 3 {
			case 0:
				body = fmt.Appendf(body, " \tx := %d // context\n", i)
				oldN, newN = oldN+1, newN+1
			case 1:
				body = fmt.Appendf(body, "-\ty := old(%d)\n", i)
				oldN++
			default:
				body = fmt.Appendf(body, "+\ty := new(%d)\n", i)
				newN++
			}
		}
		out = fmt.Appendf(out, "diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n@@ -1,%d +1,%d @@ func F() {\n", p, p, p, p, oldN, newN)
		out = append(out, body...)
	}
	return out
}

// BenchmarkStepStartChecks measures every git call a step's start makes
// besides `git worktree add` itself, on the 10,000-file repository: open
// the repository (Open), find the base branch (BaseBranch) and Ensure's
// checks before it adds (List, the branch and base lookups). This is the
// cost daokit adds to the floor, measured without the checkout's noise.
func BenchmarkStepStartChecks(b *testing.B) {
	dir := newBigRepo(b, benchFiles)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		base, err := r.BaseBranch(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.List(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Resolve(ctx, "refs/heads/daokit/T/R/S1"); err == nil {
			b.Fatal("branch exists")
		}
		if _, err := r.Resolve(ctx, "refs/heads/"+base); err != nil {
			b.Fatal(err)
		}
	}
}
