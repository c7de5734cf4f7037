package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// cliResult is what one in-process CLI call printed and returned.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs daokit in-process with a clean, English environment unless
// env overrides it.
func runCLI(t *testing.T, env map[string]string, args ...string) cliResult {
	t.Helper()
	return runCLIEnv(t, env, "", args...)
}

// runCLIWithInput is runCLI with stdin.
func runCLIWithInput(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	return runCLIEnv(t, nil, stdin, args...)
}

func runCLIEnv(t *testing.T, env map[string]string, stdin string, args ...string) cliResult {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code := run(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errOut}, getenv, nil)
	return cliResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

func TestHelpListsCommandsInBothLanguages(t *testing.T) {
	t.Parallel()
	en := runCLI(t, nil, "--help")
	if en.code != 0 || !strings.Contains(en.stdout, "Commands:") || !strings.Contains(en.stdout, "replay") {
		t.Fatalf("--help: code %d, stdout %q", en.code, en.stdout)
	}
	zh := runCLI(t, nil, "--help", "--lang", "zh-CN")
	if zh.code != 0 || !strings.Contains(zh.stdout, "命令：") {
		t.Fatalf("--help --lang zh-CN: code %d, stdout %q", zh.code, zh.stdout)
	}
	viaEnv := runCLI(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "--help")
	if !strings.Contains(viaEnv.stdout, "命令：") {
		t.Fatalf("LANG=zh_CN.UTF-8 did not select Chinese: %q", viaEnv.stdout)
	}
}

func TestUnknownLanguageIsAClearError(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "status", "--lang", "fr")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unsupported language "fr"`) || !strings.Contains(r.stderr, "zh-CN") {
		t.Fatalf("got code %d stderr %q", r.code, r.stderr)
	}
}

func TestUnknownCommandAndBadFlags(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "frobnicate")
	if r.code != exitUsage || !strings.Contains(r.stderr, "frobnicate") {
		t.Fatalf("unknown command: code %d stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "replay", "--limit", "many")
	if r.code != exitUsage || !strings.Contains(r.stderr, "many") || !strings.Contains(r.stderr, "limit") {
		t.Fatalf("bad --limit: code %d stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "status", "--no-such-flag")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no-such-flag") {
		t.Fatalf("unknown flag: code %d stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "status", "--lang", "zh-CN", "--no-such-flag")
	if r.code != exitUsage || !strings.Contains(r.stderr, "未知选项") {
		t.Fatalf("unknown flag in Chinese: code %d stderr %q", r.code, r.stderr)
	}
}
