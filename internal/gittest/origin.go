package gittest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// NewOrigin makes a bare repository to stand for repo's remote server,
// adds it to repo as "origin" and pushes main there; it returns the bare
// repository's folder.
func NewOrigin(tb testing.TB, repo string) string {
	tb.Helper()
	bare := filepath.Join(tb.TempDir(), "origin.git")
	Git(tb, repo, "init", "--quiet", "--bare", bare)
	Git(tb, repo, "remote", "add", "origin", bare)
	Git(tb, repo, "push", "--quiet", "origin", "main")
	return bare
}

// BranchAt returns the commit branch points at in the repository at
// dir, and whether it exists. It takes no testing.TB, so a server's
// goroutine (a GitHub stand-in asking whether a branch was pushed) can
// call it.
func BranchAt(dir, branch string) (string, bool) {
	cmd := exec.Command("git", "-C", dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Env = env()
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err == nil
}
