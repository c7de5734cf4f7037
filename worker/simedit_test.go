package worker

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/daokit/daokit/internal/gittest"
)

// TestSimEditsForRealAndLeavesThemUncommitted runs the simulated agent
// in a git work tree: it must change the files it says it edits, the same
// way every time, and leave them uncommitted as the real agent CLIs do
// (that is what an accept has to deliver).
func TestSimEditsForRealAndLeavesThemUncommitted(t *testing.T) {
	var diffs []string
	for range 2 {
		dir := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
		head := gittest.Git(t, dir, "rev-parse", "HEAD")
		var out bytes.Buffer
		if code := RunSim(context.Background(), SimOptions{Instruction: "add a cache", EditDir: dir}, &out, &out); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		if now := gittest.Git(t, dir, "rev-parse", "HEAD"); now != head {
			t.Fatalf("the sim committed (HEAD %s, was %s)", now, head)
		}
		gittest.Git(t, dir, "add", "--all")
		files := strings.Fields(gittest.Git(t, dir, "diff", "--cached", "--name-only"))
		if len(files) != 2 {
			t.Fatalf("the run changed %v, want the 2 edited files", files)
		}
		for _, f := range files {
			if !strings.Contains(out.String(), f) {
				t.Errorf("%s changed but the agent never said it edited it", f)
			}
		}
		diffs = append(diffs, gittest.Git(t, dir, "diff", "--cached"))
	}
	if diffs[0] != diffs[1] {
		t.Errorf("two runs made different changes:\n%s\n---\n%s", diffs[0], diffs[1])
	}
}

// TestSimCommitsWhenAsked: with Commit, the sim commits its edits on the
// HEAD it finds, a detached one included (the agent that commits on its
// own, which an accept must deliver too).
func TestSimCommitsWhenAsked(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n"})
	gittest.Git(t, dir, "checkout", "--quiet", "--detach")
	var out bytes.Buffer
	if code := RunSim(context.Background(), SimOptions{Instruction: "add a cache", EditDir: dir, Commit: true}, &out, &out); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("uncommitted after the run: %q", st)
	}
	if files := strings.Fields(gittest.Git(t, dir, "diff", "--name-only", "HEAD~1", "HEAD")); len(files) != 2 {
		t.Fatalf("commit changed %v, want the 2 edited files", files)
	}
	if msg := gittest.Git(t, dir, "log", "-1", "--format=%s"); msg != "sim: add a cache" {
		t.Errorf("commit message %q", msg)
	}
	if b := gittest.Git(t, dir, "branch", "--show-current"); b != "" {
		t.Errorf("HEAD moved onto branch %q", b)
	}
}
