package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesLeaseFlagsItCannotHonour: the Python tool's lease
// options of run either mean what daokit's controller does (their
// defaults, --lane controller, --lease-ttl equal to [lease] ttl) or are
// refused by name, in the reader's language, before anything is written.
func TestRunRefusesLeaseFlagsItCannotHonour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--step-id", "X9"}, "--step-id X9"},
		{[]string{"--lane", "lane-2"}, "--lane lane-2"},
		{[]string{"--thread-id", "worker-7"}, "--thread-id worker-7"},
		{[]string{"--no-lease"}, "--no-lease"},
		{[]string{"--lease-ttl", "1200"}, "--lease-ttl 1200"},
		{[]string{"--lease-ttl=600"}, "--lease-ttl 600"},
	} {
		for _, lang := range []string{"en", "zh-CN"} {
			root := filepath.Join(t.TempDir(), "r")
			args := append([]string{"run", "--lang", lang, "--init", "--root", root, "--task-id", "T-1", "--goal", "g"}, tc.args...)
			r := runCLI(t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.flag) {
				t.Errorf("%s %v: code %d stderr %q", lang, tc.args, r.code, r.stderr)
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("%s %v: the refused run created %s", lang, tc.args, root)
			}
		}
	}
	// What the controller does anyway passes the check: the run goes on
	// to find no ledger (no --init), a failure of the run, not of usage.
	for _, ok := range [][]string{
		{"--step-id", "S1", "--lane", "default"},
		{"--lane", "controller"},
		{"--lease-ttl", "30"}, // daokit.toml's default [lease] ttl
	} {
		root := filepath.Join(t.TempDir(), "missing")
		r := runCLI(t, nil, append([]string{"run", "--root", root, "--task-id", "T-1", "--goal", "g"}, ok...)...)
		if r.code == exitUsage || !strings.Contains(r.stderr, "E_RUN_FAILED") {
			t.Errorf("%v: code %d stderr %q", ok, r.code, r.stderr)
		}
	}
}
