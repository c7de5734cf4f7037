package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/compact"
)

// TestRelayPolicySwitch: the rollback switch. [relay] policy = "off"
// stops the window's compaction, --relay-policy overrides the file
// either way, and [compact] sets the thresholds the window uses.
func TestRelayPolicySwitch(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.DiscardHandler)
	plain := t.TempDir()
	if p := windowPolicy(plain, "", quiet); p.Manual || p.Triggers != compact.DefaultTriggers() {
		t.Errorf("no daokit.toml: manual %v, triggers %+v", p.Manual, p.Triggers)
	}
	if p := windowPolicy(plain, "off", quiet); !p.Manual {
		t.Error("--relay-policy off still compacts")
	}
	off := t.TempDir()
	if err := os.WriteFile(filepath.Join(off, "daokit.toml"), []byte("[relay]\npolicy = \"off\"\n\n[compact]\nmax_entries = 7\nmax_bytes = 0\nrepeated_status = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := windowPolicy(off, "", quiet)
	if !p.Manual || p.Triggers != (compact.Triggers{MaxEntries: 7}) {
		t.Errorf("policy off in daokit.toml: manual %v, triggers %+v", p.Manual, p.Triggers)
	}
	if p := windowPolicy(off, "on", quiet); p.Manual || p.Triggers.MaxEntries != 7 {
		t.Errorf("--relay-policy on over a file that says off: manual %v, triggers %+v", p.Manual, p.Triggers)
	}
}

// TestRelayPolicyFlagAndCheck: a bad --relay-policy is a usage error;
// check lists every bad [relay] or [compact] value and fails.
func TestRelayPolicyFlagAndCheck(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "ui", "--root", t.TempDir(), "--relay-policy", "maybe")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--relay-policy must be on or off, not maybe") {
		t.Errorf("ui --relay-policy maybe: code %d stderr %q", r.code, r.stderr)
	}
	root := t.TempDir()
	if r := runCLI(t, nil, "init", "--root", root); r.code != exitOK {
		t.Fatal(r.stderr)
	}
	if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte("[relay]\npolicy = \"none\"\n\n[compact]\nrepeated_status = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "check", "--root", root)
	if r.code != exitFailure || !strings.Contains(r.stdout+r.stderr, "relay.policy") || !strings.Contains(r.stdout+r.stderr, "compact.repeated_status = 1") {
		t.Errorf("check: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
