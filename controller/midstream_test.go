package controller

import (
	"testing"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
)

// TestProviderFailuresAndEmptyAnswersAreNamed replays real runs whose
// provider failed after its stream began, refused the key (403) or was
// overloaded past the CLI's retries, and runs whose model answered
// nothing, through the controller's loop. None ends DONE or is
// restarted: each ends with the reason the CLI's output names, after
// one attempt. A broken stream that the CLI's retry recovered passes, and
// so does an empty last answer after real work.
func TestProviderFailuresAndEmptyAnswersAreNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		kind   config.Kind
		script string
		want   string
	}{
		{"claude stream 529", config.KindClaude, `cat "$S/midstream-claude-stream-529.jsonl"; exit 1`, ReasonAgentRateLimited},
		{"claude stream 529 after a write", config.KindClaude, `cat "$S/midstream-claude-stream-529-after-write.jsonl"; exit 1`, ReasonAgentRateLimited},
		{"claude empty answer", config.KindClaude, `cat "$S/streams-claude-stream-error-529.jsonl"`, ReasonAgentNoAnswer},
		{"claude 403", config.KindClaude, `cat "$S/midstream-claude-403.jsonl"; exit 1`, ReasonAgentAuth},
		{"claude 529 after its retries", config.KindClaude, `cat "$S/midstream-claude-529.jsonl"; exit 1`, ReasonAgentRateLimited},
		{"claude 529 after its ten retries", config.KindClaude, `cat "$S/midstream-claude-529-default-retries.jsonl"; exit 1`, ReasonAgentRateLimited},
		{"codex 529 after its five retries", config.KindCodex, `cat "$S/midstream-codex-529-default-retries.jsonl"; exit 1`, ReasonAgentRateLimited},
		{"codex stream 500 after its five retries", config.KindCodex, `cat "$S/midstream-codex-stream-500-default-retries.jsonl"; exit 1`, ReasonAgentProvider},
		{"codex stream 500", config.KindCodex, `cat "$S/streams-codex-stream-error-500.jsonl"; exit 1`, ReasonAgentProvider},
		{"codex stream 429", config.KindCodex, `cat "$S/midstream-codex-stream-429.jsonl"; exit 1`, ReasonAgentRateLimited},
		{"codex stream 500 after a patch", config.KindCodex, `cat "$S/midstream-codex-stream-500-after-patch.jsonl"; exit 1`, ReasonAgentProvider},
		{"codex empty answer", config.KindCodex, `cat "$S/midstream-codex-empty-answer.jsonl"`, ReasonAgentNoAnswer},
		{"claude refusal", config.KindClaude, `cat "$S/midstream-claude-refusal.jsonl"; exit 1`, ReasonAgentRefused},
		{"codex 403", config.KindCodex, `cat "$S/midstream-codex-403.jsonl"; exit 1`, ReasonAgentAuth},
		{"claude stream recovered", config.KindClaude, `cat "$S/midstream-claude-stream-529-once.jsonl"`, ""},
		{"claude empty after a write", config.KindClaude, `cat "$S/midstream-claude-empty-after-write.jsonl"`, ""},
		{"codex empty after a patch", config.KindCodex, `cat "$S/midstream-codex-empty-after-patch.jsonl"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := startHarness(t, t.TempDir(), replayConfig(t, tt.kind, tt.script))
			ack := h.forward("add hello.txt")
			end, failed, starts := ran(h, ack.TaskID)
			status, reason := end.Payload.String("status"), end.Payload.String("reason_code")
			if tt.want == "" {
				if status != ledger.StatusDone || starts != 1 {
					t.Fatalf("run ended %s (%s) after %d attempts, want DONE after 1", status, reason, starts)
				}
				return
			}
			if status == ledger.StatusDone || reason != tt.want {
				t.Fatalf("run ended %s (%s), want %s", status, reason, tt.want)
			}
			if starts != 1 || len(failed) != 1 {
				t.Fatalf("%d attempts, %d failed step ends; want 1 and 1 (not restarted)", starts, len(failed))
			}
			if failed[0].Payload.String("agent_failure") == "" {
				t.Errorf("step end without the agent's failure: %v", failed[0].Payload)
			}
			if n := count(h.events(), func(e ledger.Event) bool { return e.EventType == ledger.EventAcceptancePassed }); n != 0 {
				t.Errorf("%d ACCEPTANCE_PASSED", n)
			}
		})
	}
}
