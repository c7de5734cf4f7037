package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/hub"
)

// TestHubSaysWhatToFixInBothLanguages: a start that cannot be safe or
// cannot happen fails before anything listens, with E_HUB_FAILED and a
// message that names the address, directory or file to fix, in the
// reader's language; anonymous access beyond loopback is a usage error.
func TestHubSaysWhatToFixInBothLanguages(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	underFile := filepath.Join(file, "hub")
	for _, c := range []struct {
		args   []string
		code   int
		en, zh string
	}{
		{[]string{"--listen", addr}, exitFailure,
			"E_HUB_FAILED: " + addr + " is already in use by another process: stop it, or give the hub another address",
			"E_HUB_FAILED: " + addr + " 已被其他进程占用"},
		{[]string{"--monitor", addr}, exitFailure,
			"E_HUB_FAILED: " + addr + " is already in use by another process",
			"E_HUB_FAILED: " + addr + " 已被其他进程占用"},
		{[]string{"--data", underFile}, exitFailure,
			"E_HUB_FAILED: the data directory " + underFile + " cannot be created or written: ",
			"E_HUB_FAILED: 无法创建或写入数据目录 " + underFile},
		{[]string{"--tls-cert", file, "--tls-key", file}, exitFailure,
			"E_HUB_FAILED: the TLS certificate " + file + " cannot be used: ",
			"E_HUB_FAILED: TLS 证书 " + file + " 无法使用"},
		{[]string{"--listen", "0.0.0.0:0", "--anonymous"}, exitUsage,
			"daokit hub: error: --anonymous is allowed only on a loopback --listen address",
			"daokit hub：错误：--anonymous 只允许用于回环 --listen 地址"},
	} {
		for lang, want := range map[string]string{"en": c.en, "zh-CN": c.zh} {
			args := append([]string{"hub", "--lang", lang, "--listen", "127.0.0.1:0", "--monitor", "127.0.0.1:0", "--data", t.TempDir()}, c.args...)
			r := runCLI(t, nil, args...)
			if r.code != c.code || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
				t.Errorf("%q: code %d stdout %q stderr %q; want code %d, stderr starting %q", args, r.code, r.stdout, r.stderr, c.code, want)
			}
		}
	}
}

// cliResult is what one run printed and returned.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs the program in-process as `daokit hub` would (args start
// with "hub", which daokit consumes), with env as the environment; the
// context is already done, so a hub that starts stops at once.
func runCLI(t *testing.T, env map[string]string, args ...string) cliResult {
	t.Helper()
	if len(args) > 0 && args[0] == "hub" {
		args = args[1:]
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := run(ctx, args, &out, &errOut, func(k string) string { return env[k] })
	return cliResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// TestHelpAndUsageInBothLanguages: daokit-hub run alone lists its flags
// with the hub's defaults, and refuses a stray argument as a usage error.
func TestHelpAndUsageInBothLanguages(t *testing.T) {
	t.Parallel()
	for lang, want := range map[string]string{"en": "Options:", "zh-CN": "选项："} {
		r := runCLI(t, nil, "--help", "--lang", lang)
		if r.code != exitOK || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, hub.DefaultListen) || !strings.Contains(r.stdout, hub.DefaultMonitor) {
			t.Errorf("--help --lang %s: code %d stdout %q", lang, r.code, r.stdout)
		}
	}
	r := runCLI(t, nil, "extra", "--lang", "en")
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, "daokit hub: error: ") || !strings.Contains(r.stderr, "extra") {
		t.Errorf("stray argument: code %d stderr %q", r.code, r.stderr)
	}
}

// TestHubCredsIssuesOneKeyPerCall: `daokit hub creds` writes the seed
// 0600 where asked and records only its public key in the data
// directory's registry, where the hub loads it; it never overwrites a
// key file, and a wrong root or role is a usage error in both languages.
func TestHubCredsIssuesOneKeyPerCall(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "hub")
	out := filepath.Join(t.TempDir(), "gpu-1.nk")
	r := runCLI(t, nil, "hub", "creds", "--lang", "en", "--data", dir, "--root-id", "alpha", "--role", "agent", "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "issued a key for root alpha, role agent: "+out) {
		t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	info, err := os.Stat(out)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("seed file: %v, %v; want mode 0600", info, err)
	}
	users, err := hub.LoadUsers(dir)
	if err != nil || len(users) != 1 || users[0].Root != "alpha" || users[0].Role != hub.RoleAgent {
		t.Fatalf("registry: %+v, %v", users, err)
	}
	seed, _ := os.ReadFile(out)
	if reg, _ := os.ReadFile(filepath.Join(dir, hub.UsersFile)); strings.Contains(string(reg), strings.TrimSpace(string(seed))) {
		t.Error("the registry holds the seed")
	}

	again := runCLI(t, nil, "hub", "creds", "--lang", "en", "--data", dir, "--root-id", "alpha", "--out", out)
	if again.code != exitFailure || !strings.HasPrefix(again.stderr, "E_HUB_FAILED: the key's file "+out+" cannot be written") {
		t.Errorf("over an existing key: code %d stderr %q", again.code, again.stderr)
	}
	if kept, _ := os.ReadFile(out); string(kept) != string(seed) {
		t.Error("an existing key file was overwritten")
	}
	if users, _ := hub.LoadUsers(dir); len(users) != 1 {
		t.Errorf("a refused issue was recorded: %+v", users)
	}

	for _, c := range []struct {
		args   []string
		en, zh string
	}{
		{[]string{"--role", "admin"}, "--role admin: want leader, agent or reader", "--role admin：应为 leader、agent 或 reader"},
		{[]string{"--root-id", "Alpha"}, "--root-id Alpha: want 1 to 64", "--root-id Alpha：需要 1 到 64"},
	} {
		for lang, want := range map[string]string{"en": c.en, "zh-CN": c.zh} {
			args := append([]string{"hub", "creds", "--lang", lang, "--data", dir, "--root-id", "alpha", "--out", filepath.Join(t.TempDir(), "k.nk")}, c.args...)
			r := runCLI(t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, want) {
				t.Errorf("%q: code %d stderr %q; want usage error %q", args, r.code, r.stderr, want)
			}
		}
	}
}
