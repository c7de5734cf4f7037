package worker

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

// TestSimEditsAndCommitsForReal runs the simulated agent in a git work
// tree: it must change the files it says it edits and commit them, the
// same way every time.
func TestSimEditsAndCommitsForReal(t *testing.T) {
	var heads []string
	for range 2 {
		dir := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
		var out bytes.Buffer
		if code := RunSim(context.Background(), SimOptions{Instruction: "add a cache", EditDir: dir}, &out, &out); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
			t.Errorf("uncommitted after the run: %q", st)
		}
		files := strings.Fields(gittest.Git(t, dir, "diff", "--name-only", "HEAD~1", "HEAD"))
		if len(files) != 2 {
			t.Fatalf("commit changed %v, want the 2 edited files", files)
		}
		for _, f := range files {
			if !strings.Contains(out.String(), f) {
				t.Errorf("%s changed but the agent never said it edited it", f)
			}
		}
		heads = append(heads, gittest.Git(t, dir, "diff", "HEAD~1", "HEAD"))
	}
	if heads[0] != heads[1] {
		t.Errorf("two runs made different changes:\n%s\n---\n%s", heads[0], heads[1])
	}
}
