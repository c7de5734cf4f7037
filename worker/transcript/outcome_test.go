package transcript

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/daokit/daokit/i18n"
)

// outcomeOf decodes real captured output (testdata/*-real-*: the CLIs
// run against a scripted model on 127.0.0.1) and keeps the events that
// say how the work went, compactly: "denied Edit /x", "retry 401
// auth_failed", "result failed auth_failed", "error option_refused".
// A .stderr file is read as the worker's stderr, anything else as stdout.
func outcomeOf(t *testing.T, kind string, files ...string) []string {
	t.Helper()
	d := NewDecoder(kind)
	var out []string
	for _, name := range files {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		stream := Stdout
		if strings.HasSuffix(name, ".stderr") {
			stream = Stderr
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			got := d.Decode(stream, sc.Bytes())
			if got.Status == StatusMalformed {
				t.Errorf("%s: a real line is malformed: %.120s", name, sc.Text())
			}
			for _, ev := range got.Events {
				switch ev.Type {
				case EventDenied:
					out = append(out, strings.TrimSpace("denied "+ev.Tool+" "+ev.Text))
				case EventRetry:
					out = append(out, "retry "+RetryDetail(*ev.Retry)+" "+ev.Failure)
				case EventResult:
					s := "result"
					if ev.Failed {
						s += " failed"
					}
					out = append(out, strings.TrimSpace(s+" "+ev.Failure))
				case EventError:
					if ev.Failure != "" {
						out = append(out, "error "+ev.Failure)
					}
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestRealCLIOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind  string
		files []string
		want  []string
	}{
		// No permission mode: the Write outside the folder and a Bash
		// redirection are refused, reported as they happen and again in
		// the result, which still says success.
		{"claude", []string{"claude-real-denied.jsonl"}, []string{
			"denied Write /tmp/hello.txt", "denied Bash go version > ran.txt", "result"}},
		{"claude", []string{"claude-real-accept-edits.jsonl"}, []string{"result"}},
		{"claude", []string{"claude-real-401.jsonl"}, []string{
			"retry 401 authentication_failed, 1/2 auth_failed", "retry 401 authentication_failed, 2/2 auth_failed",
			"result failed auth_failed"}},
		{"claude", []string{"claude-real-403.jsonl"}, []string{"result failed auth_failed"}},
		{"claude", []string{"claude-real-not-logged-in.jsonl"}, []string{"result failed not_logged_in"}},
		{"claude", []string{"claude-real-429.jsonl"}, []string{"retry 429 rate_limit, 1/1 rate_limited", "result failed rate_limited"}},
		{"claude", []string{"claude-real-529.jsonl"}, []string{"retry 529 overloaded, 1/1 rate_limited", "result failed rate_limited"}},
		{"claude", []string{"claude-real-500.jsonl"}, []string{"retry 500 server_error, 1/1 provider_error", "result failed provider_error"}},
		{"claude", []string{"claude-real-max-turns.jsonl"}, []string{"result failed max_turns"}},
		{"claude", []string{"claude-real-unknown-option.stderr"}, []string{"error option_refused"}},
		{"claude", []string{"claude-real-bypass-as-root.stderr"}, []string{"error option_refused"}},
		// Codex's read-only sandbox says nothing on stdout: the turn
		// completes, and the rejected patch is only in its log on stderr.
		{"codex", []string{"codex-real-read-only.jsonl", "codex-real-read-only.stderr"}, []string{
			"result", "denied apply_patch writing is blocked by read-only sandbox"}},
		{"codex", []string{"codex-real-patch-outside.stderr"}, []string{"denied apply_patch writing outside of the project"}},
		{"codex", []string{"codex-real-workspace-write.jsonl"}, []string{"result"}},
		{"codex", []string{"codex-real-401.jsonl"}, []string{"error auth_failed", "error auth_failed", "result failed auth_failed"}},
		{"codex", []string{"codex-real-429.jsonl"}, []string{"error rate_limited", "error rate_limited", "result failed rate_limited"}},
		{"codex", []string{"codex-real-529.jsonl"}, []string{"error rate_limited", "error rate_limited", "result failed rate_limited"}},
		{"codex", []string{"codex-real-500.jsonl"}, []string{"error provider_error", "error provider_error", "result failed provider_error"}},
		{"codex", []string{"codex-real-no-key.jsonl"}, []string{"error not_logged_in", "error not_logged_in", "result failed not_logged_in"}},
		{"codex", []string{"codex-real-not-git.stderr"}, []string{"error option_refused"}},
		{"codex", []string{"codex-real-unknown-option.stderr"}, []string{"error option_refused"}},
		// From the shared captures (worker/transcript/testdata/capture, agentlab's fake model,
		// a git repository as the folder): acceptEdits alone denies a
		// command that writes and builds; with --allowedTools Bash (the
		// default lane) the same run is refused nothing. A 429 retried once
		// and then answered passes.
		{"claude", []string{"streams-claude-denied-acceptEdits.jsonl"}, []string{
			"denied Bash echo hi > out.txt && go build ./...", "result"}},
		{"claude", []string{"streams-claude-denied-acceptEdits-allowedTools-Bash.jsonl"}, []string{"result"}},
		{"claude", []string{"streams-claude-429-then-ok.jsonl"}, []string{"retry 429 rate_limit, 1/10 rate_limited", "result"}},
		{"codex", []string{"streams-codex-denied-default.jsonl", "streams-codex-denied-default.stderr"}, []string{
			"result", "denied apply_patch writing is blocked by read-only sandbox"}},
		{"codex", []string{"streams-codex-workspace-write-outside.jsonl", "streams-codex-workspace-write-outside.stderr"}, []string{
			"result", "denied apply_patch writing outside of the project"}},
		{"codex", []string{"codex-real-reconnecting.jsonl"}, []string{"retry stream disconnected before completion: failed to lookup address information: Name does not resolve, 2/5",
			"retry stream disconnected before completion: failed to lookup address information: Name does not resolve, 3/5"}},
	}
	for _, tt := range tests {
		got := outcomeOf(t, tt.kind, tt.files...)
		for i := range got {
			got[i] = strings.TrimSpace(got[i])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.files, got, tt.want)
		}
	}
}

func TestRetryFutility(t *testing.T) {
	t.Parallel()
	for status, futile := range map[int]bool{401: true, 403: true, 429: false, 529: false, 500: false, 0: false} {
		if got := (Retry{Status: status}).Futile(); got != futile {
			t.Errorf("status %d: futile %v, want %v", status, got, futile)
		}
	}
}

func TestDescribeOutcomes(t *testing.T) {
	t.Parallel()
	for _, lang := range i18n.Supported() {
		loc := i18n.MustNew(lang)
		retry := wordEvent(loc, Event{Type: EventRetry, Retry: &Retry{Status: 401, Error: "authentication_failed", Attempt: 2, Max: 10}})
		if !strings.Contains(retry, "401 authentication_failed, 2/10") || strings.HasPrefix(retry, "worker.") {
			t.Errorf("%s: retry shown as %q", lang, retry)
		}
		deny := wordEvent(loc, Event{Type: EventDenied, Tool: "Edit", Text: "main.go"})
		if !strings.HasSuffix(deny, " · Edit main.go") || strings.HasPrefix(deny, "worker.") {
			t.Errorf("%s: denial shown as %q", lang, deny)
		}
	}
	en := i18n.MustNew(i18n.English)
	if got := wordEvent(en, Event{Type: EventRetry, Retry: &Retry{Status: 401, Error: "authentication_failed", Attempt: 1, Max: 10}}); got != "retrying (401 authentication_failed, 1/10)" {
		t.Errorf("retry in English: %q", got)
	}
}
