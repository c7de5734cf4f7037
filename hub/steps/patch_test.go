package steps

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatchComesBackOnce: what a step changed in its worktree (an edit,
// a new file, a binary file, one commit and the rest uncommitted) is one
// patch from the base; applied to another worktree of the base it gives
// the same files, and applying it again (a successor's relay) changes
// nothing and is no error; a patch that conflicts is an error.
func TestPatchComesBackOnce(t *testing.T) {
	dial, _ := testHub(t)
	c := dial()
	ctx := context.Background()

	git := func(dir string, args ...string) string {
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
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := t.TempDir()
	git(repo, "init", "-q", "-b", "main")
	write(repo, "a.txt", "one\n")
	git(repo, "add", "-A")
	git(repo, "commit", "-q", "-m", "base")
	base := git(repo, "rev-parse", "HEAD")
	remote, local := filepath.Join(t.TempDir(), "remote"), filepath.Join(t.TempDir(), "local")
	git(repo, "worktree", "add", "-q", "--detach", remote, base)
	git(repo, "worktree", "add", "-q", "--detach", local, base)

	write(remote, "a.txt", "one\ntwo\n")
	git(remote, "commit", "-q", "-am", "the agent committed this")
	write(remote, "new.txt", "new\n")
	write(remote, "bin.dat", "\x00\x01\x02binary")
	patch, err := DiffFrom(ctx, remote, base)
	if err != nil || len(patch) == 0 {
		t.Fatalf("diff: %v (%d bytes)", err, len(patch))
	}
	name := PatchName("k", 1, 1)
	if err := c.PublishPatch(ctx, name, patch); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := c.ApplyPatch(ctx, local, name); err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
		for _, f := range []string{"a.txt", "new.txt", "bin.dat"} {
			want, _ := os.ReadFile(filepath.Join(remote, f))
			got, _ := os.ReadFile(filepath.Join(local, f))
			if string(got) != string(want) {
				t.Errorf("apply %d: %s = %q, want %q", i+1, f, got, want)
			}
		}
	}
	write(local, "a.txt", "something else\n")
	if err := c.ApplyPatch(ctx, local, name); err == nil {
		t.Error("a conflicting patch applied without an error")
	}
}
