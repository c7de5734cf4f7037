package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badConfig has three problems.
const badConfig = `[heartbeat]
stale_afer = "45s"
check_interval = 2

[restart]
max_restarts = "five"
`

// TestConfigProblemsAreAllListed: check fails on a bad daokit.toml and
// lists every problem, one line each with its code; send says the same
// before it starts any controller, with a single code per line.
func TestConfigProblemsAreAllListed(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(badConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check"}, {"send", "hello"}, {"run", "--task-id", "T", "--goal", "g"}} {
		r := runCLI(t, nil, append(args, "--root", root)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != exitFailure || len(lines) != 3 || strings.Contains(r.stdout, "PASS") {
			t.Fatalf("%q: code %d stdout %q stderr %q, want 3 problems", args, r.code, r.stdout, r.stderr)
		}
		for _, line := range lines {
			if !strings.HasPrefix(line, "E_CONFIG_INVALID: ") || strings.Count(line, "E_") != 1 {
				t.Errorf("%q: %q, want one E_CONFIG_INVALID", args, line)
			}
		}
		for _, want := range []string{"stale_afer", "check_interval", "max_restarts"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%q: %s not reported: %q", args, want, r.stderr)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "state", "controller.log")); err == nil {
		t.Error("a controller was started on a bad daokit.toml")
	}
}

// TestConfigSyntaxErrorSpeaksOneLanguage: the TOML parser's English
// stays out of the Chinese message.
func TestConfigSyntaxErrorSpeaksOneLanguage(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte("[heartbeat\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "check", "--root", root, "--lang", "zh-CN")
	if r.code != exitFailure || !strings.Contains(r.stderr, "daokit.toml:") || !strings.Contains(r.stderr, "不是有效的 TOML") ||
		strings.ContainsAny(strings.TrimPrefix(strings.SplitN(r.stderr, "：", 2)[1], "E_CONFIG_INVALID"), "abcdefghijklmnopqrstuvwxyz") {
		t.Errorf("code %d stderr %q", r.code, r.stderr)
	}
}

func TestWithoutCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"E_CONTROLLER_FAILED: another controller runs": "another controller runs",
		"E_CONFIG_INVALID: x: y":                       "x: y",
		"Error: something":                             "Error: something",
		"E_lower: no":                                  "E_lower: no",
	} {
		if got := withoutCode(in); got != want {
			t.Errorf("withoutCode(%q) = %q, want %q", in, got, want)
		}
	}
}
