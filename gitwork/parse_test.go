package gitwork

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

const sampleDiff = `diff --git a/a.txt b/a.txt
index 7898192..6178079 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@ func main() {
 one
-two
+TWO
 three
diff --git a/new.go b/new.go
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/new.go
@@ -0,0 +1,2 @@
+package x
+-- not a header
\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
--- gone
diff --git a/from name.txt b/to name.txt
similarity index 90%
rename from from name.txt
rename to to name.txt
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
diff --git "a/\344\275\240.txt" "b/\344\275\240.txt"
--- "a/\344\275\240.txt"
+++ "b/\344\275\240.txt"
@@ -1 +1 @@
-a
+b
`

func TestParse(t *testing.T) {
	files := Parse([]byte(sampleDiff))
	want := []Stat{
		{Path: "a.txt", Added: 1, Removed: 1},
		{Path: "new.go", Added: 2},
		{Path: "old.txt", Removed: 1},
		{Path: "to name.txt"},
		{Path: "img.png", Binary: true},
		{Path: "你.txt", Added: 1, Removed: 1},
	}
	got := Stats(files)
	if len(got) != len(want) {
		t.Fatalf("got %d files: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if files[1].OldPath != "" || files[2].NewPath != "" || files[3].OldPath != "from name.txt" {
		t.Errorf("paths: new %+v deleted %+v renamed %+v", files[1], files[2], files[3])
	}
	h := files[0].Hunks[0]
	if h.OldStart != 1 || h.OldLines != 3 || h.NewStart != 1 || h.NewLines != 3 || len(h.Lines) != 4 || h.Lines[2] != (Line{LineAdded, "TWO"}) {
		t.Errorf("hunk = %+v", h)
	}
	if l := files[1].Hunks[0].Lines; len(l) != 3 || l[2].Kind != LineNoNewEOL {
		t.Errorf("new.go lines = %+v", l)
	}
}

func TestDiffOfARealWorktree(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "1\n2\n3\n", "gone.txt": "x\n"})
	r := openT(t, dir)
	wt, err := r.Ensure(ctx, filepath.Join(t.TempDir(), "S1"), "daokit/T/R/S1", "main")
	if err != nil {
		t.Fatal(err)
	}
	commitIn(t, wt.Path, "a.txt", "1\ntwo\n3\n4\n")
	if err := os.Remove(filepath.Join(wt.Path, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	// Live: committed and uncommitted changes.
	live, err := DiffWorktree(ctx, wt.Path, wt.Base)
	if err != nil {
		t.Fatal(err)
	}
	got := Stats(Parse(live))
	if len(got) != 2 || got[0] != (Stat{Path: "a.txt", Added: 2, Removed: 1}) || got[1] != (Stat{Path: "gone.txt", Removed: 1}) {
		t.Errorf("live stat = %+v", got)
	}
	// The branch: committed only.
	br, err := r.DiffBranch(ctx, wt.Base, wt.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if got := Stats(Parse(br)); len(got) != 1 || got[0].Path != "a.txt" {
		t.Errorf("branch stat = %+v", got)
	}
	// git's own count agrees with the parser's.
	if ns := gittest.Git(t, dir, "diff", "--numstat", wt.Base, wt.Branch); !strings.HasPrefix(ns, "2\t1\ta.txt") {
		t.Errorf("numstat = %q", ns)
	}
}

func TestParseList(t *testing.T) {
	out := "worktree /r\nHEAD abc\nbranch refs/heads/main\n\nworktree /w\nHEAD def\ndetached\nlocked reason\nprunable gitdir file points to non-existent location\nfuture key\n\n"
	got := ParseList([]byte(out))
	if len(got) != 2 || got[0] != (Entry{Path: "/r", Head: "abc", Branch: "main"}) || got[1] != (Entry{Path: "/w", Head: "def", Locked: true, Prunable: true}) {
		t.Errorf("ParseList = %+v", got)
	}
}

// FuzzParse checks that the diff reader never panics and that its counts
// are the lines it kept.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sampleDiff))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fd := range Parse(data) {
			added, removed := 0, 0
			for _, h := range fd.Hunks {
				for _, l := range h.Lines {
					switch l.Kind {
					case LineAdded:
						added++
					case LineRemoved:
						removed++
					case LineContext, LineNoNewEOL:
					default:
						t.Fatalf("line kind %q", l.Kind)
					}
				}
			}
			if added != fd.Added || removed != fd.Removed {
				t.Fatalf("counts %d/%d, lines %d/%d", fd.Added, fd.Removed, added, removed)
			}
		}
	})
}

// FuzzParseList checks that the worktree list reader never panics.
func FuzzParseList(f *testing.F) {
	f.Add([]byte("worktree /r\nHEAD abc\nbranch refs/heads/main\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// One entry per "worktree" line, whatever else the input holds.
		want := 0
		for _, l := range strings.Split(string(data), "\n") {
			if k, _, _ := strings.Cut(strings.TrimSuffix(l, "\r"), " "); k == "worktree" {
				want++
			}
		}
		if got := len(ParseList(data)); got != want {
			t.Fatalf("%d entries for %d worktree lines", got, want)
		}
	})
}
