package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestOnlyQuickReadsKeepTheDefaultSignalAction runs the CLI as main does
// and records which commands make their context end on a signal: every
// command that writes, waits or runs something does; the quick reads
// (and any --help) keep the default action, which costs nothing at
// start-up.
func TestOnlyQuickReadsKeepTheDefaultSignalAction(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		args []string
		trap bool
	}{
		{[]string{"status", "--root", root}, false},
		{[]string{"status", "--ro", root, "--js"}, false}, // option prefixes
		{[]string{"check", "--root", root}, false},
		{[]string{"replay", "--root", root}, false},
		{[]string{"diff", "--root", root}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"help", "send"}, false},
		{[]string{"send", "--help"}, false},
		{[]string{"--help"}, false},
		{[]string{"send", "--root", root, "--no-start", "hello"}, true},
		{[]string{"init", "--root", root}, true},
		{[]string{"takeover", "--root", root}, true},
		{[]string{"worktrees", "--root", root}, true},
		{[]string{"worker", "--bogus"}, true},
		{[]string{"nosuchcommand"}, true},
	} {
		trapped := false
		trap := func(ctx context.Context) (context.Context, context.CancelFunc) {
			trapped = true
			return context.WithCancel(ctx)
		}
		std := stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard}
		run(context.Background(), tc.args, std, func(string) string { return "" }, trap)
		if trapped != tc.trap {
			t.Errorf("daokit %s: signal trap installed %v, want %v", strings.Join(tc.args, " "), trapped, tc.trap)
		}
	}
}
