package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/internal/gittest"
	"github.com/daokit/daokit/ledger"
)

// BenchmarkStatusKeptWorktrees is `daokit status` on a ledger whose
// steps left kept worktrees behind (each with an agent's uncommitted
// file, as real agents leave them): with none (the floor) and with 305,
// the count the issue measured. per-tree-ms is the cost each kept
// worktree adds over the floor's ns/op, which the floor sub-benchmark
// reports itself.
func BenchmarkStatusKeptWorktrees(b *testing.B) {
	for _, n := range []int{0, 305} {
		b.Run("kept="+strconv.Itoa(n), func(b *testing.B) {
			root := keptRoot(b, n)
			getenv := func(k string) string {
				if k == "DAOKIT_LANG" {
					return "en"
				}
				return ""
			}
			var out bytes.Buffer
			b.ResetTimer()
			for b.Loop() {
				out.Reset()
				std := stdio{in: strings.NewReader(""), out: &out, err: io.Discard}
				if code := run(context.Background(), []string{"status", "--root", root}, std, getenv, nil); code != 0 {
					b.Fatalf("status exited %d", code)
				}
			}
			if n > 0 {
				if got := strings.Count(out.String(), "uncommitted changes"); got != n {
					b.Fatalf("status listed %d kept worktrees, want %d", got, n)
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/float64(n), "per-tree-ms")
			}
		})
	}
}

// keptRoot makes a daokit root whose log records n step worktrees of one
// repository, each holding an uncommitted new file.
func keptRoot(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	std := stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard}
	if code := run(context.Background(), []string{"init", "--root", root}, std, func(string) string { return "" }, nil); code != 0 {
		b.Fatalf("init exited %d", code)
	}
	repo := gittest.NewRepo(b, map[string]string{"README.md": "# project\n"})
	r, err := gitwork.Open(context.Background(), repo)
	if err != nil {
		b.Fatal(err)
	}
	var lines []byte
	for i := range n {
		step := "S" + strconv.Itoa(i)
		path := filepath.Join(root, controller.WorktreesDir, "T", "R", step)
		wt, err := r.Ensure(context.Background(), path, gitwork.BranchName("daokit", "T", "R", step), "main")
		if err != nil {
			b.Fatal(err)
		}
		gittest.WriteFile(b, filepath.Join(path, "new.go"), "package p\n")
		e := ledger.NewEvent(time.Now(), "T", "R", step, ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", controller.OpWorktreeReady, "path", wt.Path, "branch", wt.Branch, "base", wt.Base,
				"base_branch", "main", "repo", r.Top, "dir", wt.Path, "reused", false))
		line, err := ledger.MarshalLine(e)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, line...)
	}
	f, err := os.OpenFile(ledger.Layout{Root: root}.Events(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(lines); err != nil {
		b.Fatal(err)
	}
	return root
}
