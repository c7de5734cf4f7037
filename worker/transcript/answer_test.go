package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFailuresMidStreamAndEmptyAnswers decodes real runs (Claude Code
// 2.1.332, Codex 0.169.0 against internal/fakemodel) whose provider
// failed after its stream began, or whose model answered nothing.
//
// Claude Code retries a broken stream without streaming: a provider
// still failing is then named by its status (exit 1), one that answers
// passes. When every answer is empty (the capture from worker/transcript/testdata/capture,
// made before the scripted model failed that retry too, got an empty
// message there) the CLI nudges its model once and ends exit 0 with
// result "": no answer. An empty last answer after real work passes.
// Codex fails the turn ("stream disconnected before completion: …",
// "rate limit exceeded: …", exit 1) and completes one whose only answer
// is empty.
func TestFailuresMidStreamAndEmptyAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind  string
		files []string
		want  []string
	}{
		{"claude", []string{"midstream-claude-stream-529.jsonl"}, []string{"result failed rate_limited"}},
		{"claude", []string{"midstream-claude-stream-529-after-write.jsonl"}, []string{"result failed rate_limited"}},
		{"claude", []string{"midstream-claude-stream-529-once.jsonl"}, []string{"result"}},
		{"claude", []string{"streams-claude-stream-error-529.jsonl"}, []string{"result no_answer"}},
		{"claude", []string{"midstream-claude-empty-answer.jsonl"}, []string{"result no_answer"}},
		{"claude", []string{"midstream-claude-empty-after-write.jsonl"}, []string{"result"}},
		{"claude", []string{"midstream-claude-403.jsonl"}, []string{"result failed auth_failed"}},
		{"claude", []string{"midstream-claude-529.jsonl"}, []string{"retry 529 overloaded, 1/1 rate_limited", "result failed rate_limited"}},
		// Claude Code's own ten retries of a 529 (178 s here), then exit 1.
		{"claude", []string{"midstream-claude-529-default-retries.jsonl"}, append(claudeRetries529(10), "result failed rate_limited")},
		// A model's refusal: Claude Code's own synthetic "API Error", exit 1.
		{"claude", []string{"midstream-claude-refusal.jsonl"}, []string{"result failed model_refused"}},
		// An Edit that failed, then a model that says it edited: the CLI
		// says success; the failed tool result is decoded as failed.
		{"claude", []string{"midstream-claude-edit-error.jsonl"}, []string{"result"}},
		{"codex", []string{"streams-codex-stream-error-500.jsonl"}, []string{"error provider_error", "error provider_error", "result failed provider_error"}},
		{"codex", []string{"midstream-codex-stream-500.jsonl"}, []string{"error provider_error", "error provider_error", "result failed provider_error"}},
		{"codex", []string{"midstream-codex-stream-529.jsonl"}, []string{"error provider_error", "error provider_error", "result failed provider_error"}},
		{"codex", []string{"midstream-codex-stream-429.jsonl"}, []string{"error rate_limited", "error rate_limited", "result failed rate_limited"}},
		{"codex", []string{"midstream-codex-stream-500-after-patch.jsonl"}, []string{"error provider_error", "error provider_error", "result failed provider_error"}},
		{"codex", []string{"midstream-codex-empty-answer.jsonl"}, []string{"result no_answer"}},
		{"codex", []string{"midstream-codex-empty-after-patch.jsonl"}, []string{"result"}},
		{"codex", []string{"midstream-codex-403.jsonl"}, []string{"error auth_failed", "error auth_failed", "result failed auth_failed"}},
		{"codex", []string{"midstream-codex-529.jsonl"}, []string{"error rate_limited", "error rate_limited", "result failed rate_limited"}},
	}
	for _, tt := range tests {
		if got := outcomeOf(t, tt.kind, tt.files...); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.files, got, tt.want)
		}
	}
}

// TestCodexRetriesThenNamesTheFailure: with Codex's own retries (its
// defaults: 4 for a request, 5 for a stream) each retry shows, with the
// status when there is one, and the turn that fails after them is named.
func TestCodexRetriesThenNamesTheFailure(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]struct{ retry, end string }{
		"midstream-codex-529-default-retries.jsonl":        {"rate_limited", "rate_limited"},
		"midstream-codex-stream-500-default-retries.jsonl": {"", "provider_error"},
	} {
		var retries, rest []string
		for _, s := range outcomeOf(t, "codex", file) {
			if strings.HasPrefix(s, "retry ") {
				retries = append(retries, s)
				continue
			}
			rest = append(rest, s)
		}
		if len(retries) != 5 || !strings.HasSuffix(strings.TrimSpace(retries[4]), strings.TrimSpace("5/5 "+want.retry)) {
			t.Errorf("%s: retries %q", file, retries)
		}
		if end := []string{"error " + want.end, "error " + want.end, "result failed " + want.end}; !slices.Equal(rest, end) {
			t.Errorf("%s: %q, want %q", file, rest, end)
		}
	}
}

// TestEditThatFailedIsAFailedToolResult: Claude Code's Edit of a file
// that does not exist comes back as a tool_result with is_error, which
// the decoder keeps as a failed tool result, whatever the model says
// after.
func TestEditThatFailedIsAFailedToolResult(t *testing.T) {
	t.Parallel()
	var results []string
	for _, ev := range decodeFile(t, "claude", "midstream-claude-edit-error.jsonl").events {
		if strings.HasPrefix(ev, "tool_result") {
			results = append(results, ev)
		}
	}
	if len(results) != 1 || !strings.Contains(results[0], "Edit") || !strings.Contains(results[0], " failed") {
		t.Fatalf("tool results %q, want one failed Edit", results)
	}
}

// TestPatchThatFailedIsAFailedToolResult: Codex's apply_patch of a file
// that does not exist fails only in its log on stderr; stdout has the
// model's "Done: patched" and a completed turn. The decoder makes the
// stderr line a failed apply_patch result.
func TestPatchThatFailedIsAFailedToolResult(t *testing.T) {
	t.Parallel()
	d := NewDecoder("codex")
	var got []Event
	for _, f := range []struct {
		name   string
		stream Stream
	}{{"midstream-codex-patch-failed.jsonl", Stdout}, {"midstream-codex-patch-failed.stderr", Stderr}} {
		raw, err := os.ReadFile(filepath.Join("testdata", f.name))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			got = append(got, d.Decode(f.stream, []byte(line)).Events...)
		}
	}
	var failed []Event
	for _, ev := range got {
		if ev.Type == EventToolResult {
			failed = append(failed, ev)
		}
	}
	if len(failed) != 1 || !failed[0].Failed || failed[0].Tool != "apply_patch" ||
		!strings.HasPrefix(failed[0].Text, "Failed to read file to update ") {
		t.Fatalf("tool results %+v, want one failed apply_patch", failed)
	}
}

// TestNoAnswerIsPerProcess: a decoder lives as long as one process, and
// the first answer of the model, whatever it is, keeps the result as
// the CLI said it.
func TestNoAnswerIsPerProcess(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		before []Event
		result Event
		want   string
	}{
		{nil, Event{Type: EventResult}, FailNoAnswer},
		{nil, Event{Type: EventResult, Text: " \n"}, FailNoAnswer},
		{[]Event{{Type: EventMessage, Text: "  "}}, Event{Type: EventResult}, FailNoAnswer},
		{[]Event{{Type: EventProgress, Text: "thinking"}}, Event{Type: EventResult}, FailNoAnswer},
		{[]Event{{Type: EventMessage, Text: "Nothing to change."}}, Event{Type: EventResult}, ""},
		{[]Event{{Type: EventTool, Tool: "Write"}}, Event{Type: EventResult}, ""},
		{[]Event{{Type: EventDenied, Tool: "Bash"}}, Event{Type: EventResult}, ""},
		{nil, Event{Type: EventResult, Text: "Done."}, ""},
		{nil, Event{Type: EventResult, Failed: true}, ""},
		{nil, Event{Type: EventResult, Failure: FailProvider}, FailProvider},
	} {
		lines := scripted(append(tt.before, tt.result))
		w := &answerWatch{Decoder: &lines}
		var last Event
		for range len(tt.before) + 1 {
			for _, ev := range w.Decode(Stdout, nil).Events {
				last = ev
			}
		}
		if last.Failure != tt.want {
			t.Errorf("%+v then %+v: failure %q, want %q", tt.before, tt.result, last.Failure, tt.want)
		}
	}
}

// scripted is a decoder that returns one event per line, in order.
type scripted []Event

func (s *scripted) Decode(Stream, []byte) Decoded {
	ev := (*s)[0]
	*s = (*s)[1:]
	return understood(ev)
}

// claudeRetries529 is how outcomeOf shows Claude Code's n retries of an
// overloaded provider.
func claudeRetries529(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("retry 529 overloaded, %d/%d rate_limited", i+1, n)
	}
	return out
}
