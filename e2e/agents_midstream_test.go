package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/internal/fakemodel"
	"github.com/daokit/daokit/ledger"
)

// midstreamCase is one scripted answer of the model and how daokit must
// end the step the real CLI ran on it.
type midstreamCase struct {
	name  string
	turns []fakemodel.Turn
	// reason is the step's reason code, "" for a step that passes (its
	// change waits for review; with nothing written it ends DONE); en
	// and zh are what `daokit status` says.
	reason, en, zh string
	// wrote is a file the agent's work leaves in the project.
	wrote string
}

// TestRealProviderFailuresAreNamed runs the real Claude Code and Codex
// CLIs, each on its default lane, through the real daokit binary against
// a model that fails after its stream began, refuses the key (403), is
// overloaded past the CLI's own retries (529), refuses the request
// (Claude's stop reason "refusal") or answers nothing. None
// ends DONE or is restarted: each ends after one attempt with the reason
// its CLI's output names, and `daokit status` says it in English and in
// Chinese. A stream that fails once and is retried passes (its step,
// which changed nothing, ends DONE), and so does an empty last answer after real work (both CLIs print the same empty
// result then as for no answer at all).
func TestRealProviderFailuresAreNamed(t *testing.T) {
	stream := func(status, times int) fakemodel.Turn {
		return fakemodel.Turn{StreamError: &fakemodel.APIError{Status: status, Times: times}, Text: "Recovered."}
	}
	overloaded := []string{"AGENT_RATE_LIMITED", "Agent: rate limited or overloaded", "代理：请求受限或服务过载"}
	noAnswer := []string{"AGENT_NO_ANSWER", "Agent: the agent's model answered nothing", "代理：代理的模型没有任何回答"}
	refused := []string{"AGENT_AUTH_FAILED", "Agent: authentication failed", "代理：身份验证失败"}
	provider := []string{"AGENT_PROVIDER_ERROR", "Agent: model provider error", "代理：模型服务商出错"}
	refusal := []string{"AGENT_MODEL_REFUSED", "Agent: the model refused the request", "代理：模型拒绝了这个请求"}
	named := func(name string, turns []fakemodel.Turn, want []string) midstreamCase {
		return midstreamCase{name: name, turns: turns, reason: want[0], en: want[1], zh: want[2]}
	}
	tests := map[string][]midstreamCase{
		"claude": {
			named("stream-529", []fakemodel.Turn{stream(529, 0)}, overloaded),
			named("no-answer", []fakemodel.Turn{fakemodel.Say("")}, noAnswer),
			named("403", []fakemodel.Turn{fakemodel.Fail(403)}, refused),
			named("529", []fakemodel.Turn{fakemodel.Fail(529)}, overloaded),
			named("refusal", []fakemodel.Turn{{StopReason: "refusal"}}, refusal),
			{name: "stream-once", turns: []fakemodel.Turn{stream(529, 1)}},
			{name: "empty-after-work", wrote: "hello.txt", turns: []fakemodel.Turn{
				fakemodel.Call("", fakemodel.Write(fakemodel.Cwd+"/hello.txt", "hi\n")), fakemodel.Say("")}},
		},
		"codex": {
			named("stream-500", []fakemodel.Turn{stream(500, 0)}, provider),
			named("stream-429", []fakemodel.Turn{stream(429, 0)}, overloaded),
			named("no-answer", []fakemodel.Turn{fakemodel.Say("")}, noAnswer),
			named("403", []fakemodel.Turn{fakemodel.Fail(403)}, refused),
			named("529", []fakemodel.Turn{fakemodel.Fail(529)}, overloaded),
			{name: "empty-after-work", wrote: "new.txt", turns: []fakemodel.Turn{
				fakemodel.Call("", fakemodel.ApplyPatch(map[string]string{"new.txt": "hi\n"})), fakemodel.Say("")}},
		},
	}
	for _, kind := range []string{"claude", "codex"} {
		for _, tt := range tests[kind] {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				mark := "MID-" + strings.ToUpper(tt.name)
				b := newAgentBench(t, fakemodel.Rule{Name: tt.name, Match: mark, Turns: tt.turns})
				// One retry of its own: Claude Code would wait out ten
				// overloaded answers, minutes, before it gives up.
				b.configure(`
[[lanes]]
name = "agent"
kind = "` + kind + `"
dir = "{project}"
env = ["CLAUDE_CODE_MAX_RETRIES=1"]
stop_grace = "2s"
timeout = "2m"
`)
				ctl := b.startController()
				defer ctl.stop()
				taskID := ackTask(t, run(t, "send", "--root", b.root, mark+": change hello.txt"))
				starts := func() (n int) {
					for _, e := range events(t, b.root) {
						if e.TaskID == taskID && (e.EventType == ledger.EventStepStarted || e.EventType == ledger.EventStepFailed) {
							n++
						}
					}
					return n
				}
				if tt.reason == "" && tt.wrote == "" {
					// The step passed and changed nothing: no review, DONE.
					end := b.waitOp(taskID, "RUN_FINISHED", time.Minute)
					if n := starts(); n != 1 || end.Payload.String("status") != ledger.StatusDone {
						t.Fatalf("%d attempts and failures, run ended %v; want one attempt, DONE\n%s", n, end.Payload, b.describe())
					}
					return
				}
				if tt.reason == "" {
					// The step passed: its change waits for the person.
					review := b.waitOp(taskID, "REVIEW_PENDING", time.Minute)
					if n := starts(); n != 1 {
						t.Fatalf("%d attempts and failures, want the one attempt\n%s", n, b.describe())
					}
					if tt.wrote != "" {
						if _, err := os.Stat(filepath.Join(review.Payload.String("path"), tt.wrote)); err != nil {
							t.Errorf("the agent's work is not there: %v", err)
						}
					}
					return
				}
				end := b.waitOp(taskID, "RUN_FINISHED", time.Minute)
				status, reason := end.Payload.String("status"), end.Payload.String("reason_code")
				if status == ledger.StatusDone || reason != tt.reason {
					t.Fatalf("run ended %s (%s), want %s\n%s", status, reason, tt.reason, b.describe())
				}
				if n := starts(); n != 2 {
					t.Errorf("%d attempts and failures, want 1 of each: nothing here is worth a restart", n)
				}
				for lang, want := range map[string]string{"en": tt.en, "zh-CN": tt.zh} {
					s := run(t, "status", "--root", b.root, "--lang", lang)
					if !strings.Contains(s.stdout, want) {
						t.Errorf("%s: status lacks %q:\n%s", lang, want, s.stdout)
					}
				}
			})
		}
	}
}
