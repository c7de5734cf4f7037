// Package gittest makes throwaway git repositories for tests. Git runs
// with no global or system configuration, in English, and never prompts,
// so that a developer's own settings (signing, hooks, another default
// branch) cannot change what a test sees.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git with args in dir and returns its trimmed output; a failure
// ends the test with git's own words.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// NewRepo makes a repository on branch main whose first commit holds
// files (path → content, folders made as needed), and returns its top
// folder. The identity is in the repository's own configuration, so that
// the git commands daokit itself runs there can commit too. Without git
// the test is skipped.
func NewRepo(tb testing.TB, files map[string]string) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	dir := filepath.Join(tb.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	Git(tb, dir, "init", "--quiet", "--initial-branch=main")
	Git(tb, dir, "config", "user.name", "Test")
	Git(tb, dir, "config", "user.email", "test@example.com")
	Git(tb, dir, "config", "commit.gpgsign", "false")
	for p, c := range files {
		WriteFile(tb, filepath.Join(dir, p), c)
	}
	Git(tb, dir, "add", "--all")
	Git(tb, dir, "commit", "--quiet", "-m", "initial")
	return dir
}

// WriteFile writes content to path, making its folders.
func WriteFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// env is the test process's environment without what would point git
// elsewhere (a hook's GIT_DIR), with the hermetic settings added.
func env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "LANGUAGE=C")
}
