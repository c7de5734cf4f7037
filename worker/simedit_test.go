package worker

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestSimEditsAndCommitsForReal runs the simulated agent in a git work
// tree: it must change the files it says it edits and commit them, the
// same way every time.
func TestSimEditsAndCommitsForReal(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	var heads []string
	for range 2 {
		dir := t.TempDir()
		gitOut(t, dir, "init", "--quiet", "--initial-branch=main")
		gitOut(t, dir, "config", "user.name", "T")
		gitOut(t, dir, "config", "user.email", "t@example.com")
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitOut(t, dir, "add", "-A")
		gitOut(t, dir, "commit", "-qm", "init", "--date=2020-01-01T00:00:00Z")
		var out bytes.Buffer
		if code := RunSim(context.Background(), SimOptions{Instruction: "add a cache", EditDir: dir}, &out, &out); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		if st := gitOut(t, dir, "status", "--porcelain"); st != "" {
			t.Errorf("uncommitted after the run: %q", st)
		}
		files := strings.Fields(gitOut(t, dir, "diff", "--name-only", "HEAD~1", "HEAD"))
		if len(files) != 2 {
			t.Fatalf("commit changed %v, want the 2 edited files", files)
		}
		for _, f := range files {
			if !strings.Contains(out.String(), f) {
				t.Errorf("%s changed but the agent never said it edited it", f)
			}
		}
		heads = append(heads, gitOut(t, dir, "diff", "HEAD~1", "HEAD"))
	}
	if heads[0] != heads[1] {
		t.Errorf("two runs made different changes:\n%s\n---\n%s", heads[0], heads[1])
	}
}
