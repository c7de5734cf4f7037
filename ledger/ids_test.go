package ledger

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestIDPattern(t *testing.T) {
	for _, id := range []string{"DKT-001", "S1", "default", "DK-F5799D89_20261123T080141Z", "a", "_x", "v1.2", strings.Repeat("a", 128)} {
		if err := CheckID("task_id", id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../../escape", "a/b", "/abs", "-rf", ".hidden", "a b", "é", "a\x00", "a\n", "a\\b", strings.Repeat("a", 129)} {
		err := CheckID("run_id", id)
		var ie *IDError
		if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidID) || ie.Kind != "run_id" || !strings.Contains(err.Error(), "run_id") {
			t.Errorf("%q: %v, want an *IDError naming run_id", id, err)
		}
	}
}

// FuzzValidIDIsIDPattern: the hand-written ValidID accepts exactly what
// IDPattern matches.
func FuzzValidIDIsIDPattern(f *testing.F) {
	for _, s := range []string{"DKT-001", "", ".", "-rf", "a.b", "_x", "é", strings.Repeat("a", 128), strings.Repeat("a", 129), "a\n"} {
		f.Add(s)
	}
	re := regexp.MustCompile(IDPattern)
	f.Fuzz(func(t *testing.T, id string) {
		if ValidID(id) != re.MatchString(id) {
			t.Fatalf("ValidID(%q) = %v, IDPattern says %v", id, ValidID(id), re.MatchString(id))
		}
	})
}

// FuzzArtifactDir: whatever the ids, ArtifactDir refuses them or returns
// a folder three levels beneath <root>/artifacts.
func FuzzArtifactDir(f *testing.F) {
	for _, s := range [][3]string{{"DKT-1", "R1", "S1"}, {"../../escape", "r", "S1"}, {"a", "..", "b"}, {"a/b", "c", "d"}, {"", "", ""}, {".", "x", "y"}} {
		f.Add(s[0], s[1], s[2])
	}
	l := Layout{Root: "/srv/ledger"}
	f.Fuzz(func(t *testing.T, task, run, step string) {
		dir, err := l.ArtifactDir(task, run, step)
		if err != nil {
			if !errors.Is(err, ErrInvalidID) {
				t.Fatalf("error %v is not ErrInvalidID", err)
			}
			return
		}
		rel, err := filepath.Rel(l.Artifacts(), dir)
		if err != nil || strings.HasPrefix(rel, "..") || strings.Count(rel, string(filepath.Separator)) != 2 || filepath.Clean(dir) != dir {
			t.Fatalf("ArtifactDir(%q, %q, %q) = %s, not three levels beneath %s", task, run, step, dir, l.Artifacts())
		}
	})
}
