package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/worker"
)

// gitIn runs git in dir and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestStepRunsAtItsBaseCommit: a step naming a commit runs in a
// worktree of the agent's own clone at that commit, fetched when the
// clone lacks it (the second step's commit came after the clone was
// made): from the remote the step names, or from the bundle its relay
// published to the hub. It runs in the lane's folder inside the
// worktree, with DAOKIT_WORKTREE and DAOKIT_AGENT set; its worktree is
// removed once the step is done.
func TestStepRunsAtItsBaseCommit(t *testing.T) {
	for _, bundle := range []bool{false, true} {
		t.Run(map[bool]string{false: "remote", true: "bundle"}[bundle], func(t *testing.T) { testBaseCommit(t, bundle) })
	}
}

func testBaseCommit(t *testing.T, bundle bool) {
	remote := t.TempDir()
	gitIn(t, remote, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(remote, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	commit := func(text string) string {
		if err := os.WriteFile(filepath.Join(remote, "svc", "f.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, remote, "add", "-A")
		gitIn(t, remote, "commit", "-q", "-m", text)
		return gitIn(t, remote, "rev-parse", "HEAD")
	}
	c, _ := startHub(t)
	a := &Agent{c: c, o: Options{Name: "host-a", WorkDir: t.TempDir()}}
	ctx := context.Background()
	for i, text := range []string{"one", "two"} {
		base := commit(text)
		s := steps.Step{Key: "k", Dispatch: 1 + i, Kind: "command", Argv: []string{"sh", "-c", `cat f.txt; echo " $DAOKIT_AGENT"; test -d "$DAOKIT_WORKTREE/.git" || test -f "$DAOKIT_WORKTREE/.git"`},
			Remote: remote, Commit: base, Subdir: "svc"}
		if bundle {
			s.Remote, s.Bundle = "", true
			if err := c.PublishBundle(ctx, filepath.Join(remote, "svc"), base); err != nil {
				t.Fatal(err)
			}
		}
		spec, _, cleanup, err := a.prepare(ctx, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := worker.Start(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rec := range p.Records() {
			out = append(out, rec.Text)
		}
		res := p.Wait()
		tree := filepath.Dir(spec.Dir)
		if !res.Success() || !strings.Contains(strings.Join(out, "\n"), text+" host-a") {
			t.Errorf("step at %s: exit %d, output %q; want %q", text, res.ExitCode, out, text+" host-a")
		}
		cleanup()
		if _, err := os.Stat(tree); !os.IsNotExist(err) {
			t.Errorf("the worktree %s is still there after the step (%v)", tree, err)
		}
	}
}
