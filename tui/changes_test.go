package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/daokit/daokit/gitwork"
	"github.com/daokit/daokit/tui/live"
)

// changesDiff is a step's change as git prints it: two files, a Chinese
// line, a tab, and a line without its newline.
const changesDiff = `diff --git a/internal/cache/lru.go b/internal/cache/lru.go
index 1111111..2222222 100644
--- a/internal/cache/lru.go
+++ b/internal/cache/lru.go
@@ -1,4 +1,5 @@ package cache
 package cache
 
-// LRU is a cache.
+// LRU is a least-recently-used cache.
+// 缓存：最近最少使用
 type LRU struct {
diff --git a/README.md b/README.md
new file mode 100644
--- /dev/null
+++ b/README.md
@@ -0,0 +1,2 @@
+# demo
+	indented
\ No newline at end of file
`

var changesSource = live.ChangeSource{Step: "S1", Path: "/demo/worktrees/T/R/S1", Base: "abc", Branch: "daokit/T/R/S1", Repo: "/repo"}

// openChanges builds a window of w×h with the changes view open on diff.
func openChanges(tb testing.TB, lang string, w, h int, diff []byte) *Model {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	m := New(ctx, testOptions(lang))
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(tea.KeyMsg{Type: tea.KeyF3})
	m.Update(live.ChangesMsg{Source: changesSource, Files: gitwork.Parse(diff)})
	return m
}

// TestChangesViewGolden compares the changes view (F3) with
// testdata/TestChangesViewGolden/<lang>.golden. Regenerate with
// go test ./tui -run TestChangesViewGolden -update.
func TestChangesViewGolden(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			m := openChanges(t, lang, 100, 24, []byte(changesDiff))
			view := m.View()
			checkFrame(t, view, 100, 24, "changes view")
			for _, want := range []string{"internal/cache/lru.go", "+2 -1", "+// 缓存：最近最少使用", "@@ -1,4 +1,5 @@"} {
				if !strings.Contains(view, want) {
					t.Errorf("view lacks %q", want)
				}
			}
			golden.RequireEqual(t, []byte(view))
			// The next file, then closing with esc.
			m.Update(tea.KeyMsg{Type: tea.KeyRight})
			if v := m.View(); !strings.Contains(v, "+    indented") {
				t.Errorf("next file not shown:\n%s", v)
			}
			m.Update(tea.KeyMsg{Type: tea.KeyEsc})
			if strings.Contains(m.View(), "internal/cache/lru.go") {
				t.Error("esc did not close the changes view")
			}
		})
	}
}

func TestAcceptAndRejectAreForwarded(t *testing.T) {
	opts := testOptions("en")
	r := newFakeRelay()
	opts.Relay = r
	m := newTestModel(t, opts, 120, 40)
	runQuick(m, m.submit("/accept"))
	runQuick(m, m.submit("/reject use tabs, not spaces"))
	calls := strings.Join(r.Calls(), " ")
	if !strings.Contains(calls, "control:accept") || !strings.Contains(calls, "control:reject:use tabs, not spaces") {
		t.Errorf("relay calls: %s", calls)
	}
}

// bigDiff is a diff of 5,000 lines over 50 files.
func bigDiff() []byte {
	var b strings.Builder
	for f := range 50 {
		p := fmt.Sprintf("pkg/f%02d.go", f)
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,66 +1,67 @@ func F() {\n", p, p, p, p)
		for i := range 99 {
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, " \tx := %d // context\n", i)
			case 1:
				fmt.Fprintf(&b, "-\ty := old(%d)\n", i)
			default:
				fmt.Fprintf(&b, "+\ty := new(%d)\n", i)
			}
		}
		b.WriteString("+\t// one more\n")
	}
	return []byte(b.String())
}

// BenchmarkChangesFirstFrame measures opening the changes view on a
// 5,000-line diff: the parsed change arrives and the first frame is drawn
// (goal: under 50 ms).
func BenchmarkChangesFirstFrame(b *testing.B) {
	data := bigDiff()
	files := gitwork.Parse(data)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, testOptions("en"))
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	b.ResetTimer()
	for b.Loop() {
		m.Update(tea.KeyMsg{Type: tea.KeyF3})
		m.Update(live.ChangesMsg{Source: changesSource, Files: files})
		if len(m.View()) == 0 {
			b.Fatal("empty frame")
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	}
}

// BenchmarkChangesParseAndFirstFrame adds reading git's output (the
// command's share) to the first frame.
func BenchmarkChangesParseAndFirstFrame(b *testing.B) {
	data := bigDiff()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, testOptions("en"))
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	b.ResetTimer()
	for b.Loop() {
		m.Update(tea.KeyMsg{Type: tea.KeyF3})
		m.Update(live.ChangesMsg{Source: changesSource, Files: gitwork.Parse(data)})
		if len(m.View()) == 0 {
			b.Fatal("empty frame")
		}
		m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	}
}

// BenchmarkChangesScroll measures one page of scrolling in a 5,000-line
// diff and the frame after it (goal: within one frame, 16 ms).
func BenchmarkChangesScroll(b *testing.B) {
	m := openChanges(b, "en", 160, 48, bigDiff())
	down, up := tea.KeyMsg{Type: tea.KeyPgDown}, tea.KeyMsg{Type: tea.KeyPgUp}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := down
		if i%40 >= 20 {
			k = up
		}
		m.Update(k)
		if len(m.View()) == 0 {
			b.Fatal("empty frame")
		}
	}
}
