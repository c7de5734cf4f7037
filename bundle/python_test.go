package bundle

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// The expected values below are what CPython 3.11 answers for the same
// input (str.splitlines, str.strip, sorted(Path), Path.parts).

func TestSplitLinesAsPython(t *testing.T) {
	got := splitLines("a\vb\fc\x1cd\u0085e\u2028f\n\ng\n")
	want := []string{"a", "b", "c", "d", "e", "f", "", "g"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := pyStrip(" \x1f\u00a0x\u3000 "); got != "x" {
		t.Fatalf("strip: %q", got)
	}
}

func TestPathsSortAsPython(t *testing.T) {
	got := []string{"a-c", "a/b", "a", "B", "a.txt", "说明.md", "z"}
	sort.Slice(got, func(i, j int) bool { return lessParts(got[i], got[j]) })
	want := []string{"B", "a", "a/b", "a-c", "a.txt", "z", "说明.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := parts("docs//reports/./final-run/x"); !reflect.DeepEqual(got, []string{"docs", "reports", "final-run", "x"}) {
		t.Fatalf("parts: %q", got)
	}
}

// TestManifestTargets: a manifest names files relative to the repository
// (docs/reports/final-run/…) or to the anchor; both find the bundled file,
// the first also when the bundle root is itself the final-run folder.
func TestManifestTargets(t *testing.T) {
	base := t.TempDir()
	anchor := filepath.Join(base, "docs", "reports", "final-run")
	if err := os.MkdirAll(filepath.Join(anchor, "evidence"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(anchor, "evidence", "x.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ entry, base, anchor, want string }{
		{"docs/reports/final-run/evidence/x.log", base, anchor, filepath.Join(anchor, "evidence/x.log")},
		{"evidence/x.log", base, anchor, filepath.Join(anchor, "evidence/x.log")},
		// Found nowhere: under the bundle root, where it is then missing.
		{"evidence/none.log", base, anchor, filepath.Join(base, "evidence/none.log")},
		// Bundle root = final-run folder: the prefix is trimmed.
		{"docs/reports/final-run/evidence/x.log", anchor, anchor, filepath.Join(anchor, "evidence/x.log")},
		{"/abs/z", base, anchor, "/abs/z"},
	} {
		if got := manifestTarget(tc.entry, tc.base, tc.anchor); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.entry, got, tc.want)
		}
	}
}
