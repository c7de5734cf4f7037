package gitwork

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitT runs git in dir for a test and returns its trimmed output.
func gitT(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository on branch main with files (path → content)
// in one commit, and returns its top folder.
func newRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	dir := filepath.Join(tb.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	gitT(tb, dir, "init", "--quiet", "--initial-branch=main")
	gitT(tb, dir, "config", "user.name", "Test")
	gitT(tb, dir, "config", "user.email", "test@example.com")
	gitT(tb, dir, "config", "commit.gpgsign", "false")
	for p, c := range files {
		writeFile(tb, filepath.Join(dir, p), c)
	}
	gitT(tb, dir, "add", "--all")
	gitT(tb, dir, "commit", "--quiet", "-m", "initial")
	return dir
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func openT(tb testing.TB, dir string) *Repo {
	tb.Helper()
	r, err := Open(context.Background(), dir)
	if err != nil {
		tb.Fatalf("open %s: %v", dir, err)
	}
	return r
}

// commitIn edits path in the work tree at dir and commits it.
func commitIn(tb testing.TB, dir, path, content string) string {
	tb.Helper()
	writeFile(tb, filepath.Join(dir, path), content)
	c, err := CommitAll(context.Background(), dir, "edit "+path)
	if err != nil || c == "" {
		tb.Fatalf("commit in %s: %q %v", dir, c, err)
	}
	return c
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
