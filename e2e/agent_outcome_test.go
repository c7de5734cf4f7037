package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// agentReplayConfig is a claude lane whose worker replays real captured
// Claude Code output (worker/transcript/testdata) and exits with the
// CLI's code, so that the real binary reads what the CLI printed.
func agentReplayConfig(t *testing.T, script string) string {
	t.Helper()
	dir, err := filepath.Abs("../worker/transcript/testdata")
	if err != nil {
		t.Fatal(err)
	}
	return drillTimings + `
[[lanes]]
name = "worker"
kind = "claude"
command = ["sh", "-c", '` + strings.ReplaceAll(script, "$S", dir) + `', "sh", "{instruction}"]
stop_grace = "200ms"
`
}

// TestAgentFailuresReachThePersonInTheirLanguage runs the real binary on
// replayed Claude Code runs: a 401 is "authentication failed" after one
// attempt, and denied edits are listed, in English and in Chinese, by
// send --wait and by status.
func TestAgentFailuresReachThePersonInTheirLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		send, status map[string][]string
	}{
		{"401", `cat "$S/claude-real-401.jsonl"; exit 1`,
			map[string][]string{"en": {"(authentication failed)", "retrying (401 authentication_failed, 1/2)"}, "zh-CN": {"(身份验证失败)"}},
			map[string][]string{"en": {"Agent: authentication failed"}, "zh-CN": {"代理：身份验证失败"}}},
		{"denied", `cat "$S/claude-real-denied.jsonl"`,
			map[string][]string{"en": {"denied · Write /tmp/hello.txt", "(permission denied: the agent's edits or commands were refused)"}, "zh-CN": {"权限被拒绝"}},
			map[string][]string{
				"en":    {"Denied to the agent: Write /tmp/hello.txt; Bash go version > ran.txt"},
				"zh-CN": {"代理被拒绝的操作：Write /tmp/hello.txt; Bash go version > ran.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, lang := range []string{"en", "zh-CN"} {
				root := newRoot(t, agentReplayConfig(t, tt.script))
				ctl := startController(t, root)
				r := run(t, "send", "--root", root, "--lang", lang, "--wait", "add hello.txt")
				if r.code == 0 {
					t.Errorf("%s: send --wait exited 0 for a failed run:\n%s", lang, r.stdout)
				}
				for _, want := range tt.send[lang] {
					if !strings.Contains(r.stdout+r.stderr, want) {
						t.Errorf("%s: send --wait lacks %q:\n%s%s", lang, want, r.stdout, r.stderr)
					}
				}
				if n := strings.Count(r.stdout, "STEP_STARTED"); n > 1 {
					t.Errorf("%s: %d attempts", lang, n)
				}
				s := run(t, "status", "--root", root, "--lang", lang)
				for _, want := range tt.status[lang] {
					if !strings.Contains(s.stdout, want) {
						t.Errorf("%s: status lacks %q:\n%s", lang, want, s.stdout)
					}
				}
				starts := 0
				for _, e := range events(t, root) {
					if e.EventType == "STEP_STARTED" {
						starts++
					}
				}
				if starts != 1 {
					t.Errorf("%s: %d workers started, want 1", lang, starts)
				}
				ctl.stop()
			}
		})
	}
}
