package controller

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
)

// realStreams holds output captured from the real CLIs (Claude Code
// 2.1.332, Codex 0.169.0) run against a scripted model on 127.0.0.1.
const realStreams = "../worker/transcript/testdata/"

// replayConfig is a lane of kind kind whose worker replays real captured
// output: script runs with $S set to the folder of the captures, so the
// controller reads exactly what the CLI printed and sees its exit code.
func replayConfig(t *testing.T, kind config.Kind, script string) config.Config {
	t.Helper()
	dir, err := filepath.Abs(realStreams)
	if err != nil {
		t.Fatal(err)
	}
	cfg := shellConfig(script)
	cfg.Lanes[0].Kind = kind
	cfg.Lanes[0].Env = config.Env{"S=" + dir}
	return cfg
}

// ran returns the run's end, its step ends and how many workers started.
func ran(h *harness, taskID string) (end ledger.Event, failed []ledger.Event, starts int) {
	end = h.finished(taskID)
	for _, e := range h.events() {
		if e.TaskID != taskID {
			continue
		}
		switch e.EventType {
		case ledger.EventStepStarted:
			starts++
		case ledger.EventStepFailed:
			failed = append(failed, e)
		}
	}
	return end, failed, starts
}

// deniedOf reads the "denied" list of a step's end as "tool target".
func deniedOf(t *testing.T, e ledger.Event) []string {
	t.Helper()
	raw, ok := e.Payload.Get("denied")
	if !ok {
		return nil
	}
	var list []struct{ Tool, Target string }
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("denied: %v", err)
	}
	var out []string
	for _, d := range list {
		out = append(out, d.Tool+" "+d.Target)
	}
	return out
}

// TestDeniedWorkDoesNotPass replays real runs whose edits were refused:
// Claude Code without a permission mode (exit 0, result "success" with
// permission_denials) and Codex in its read-only sandbox (exit 0, the
// rejection only on stderr). Neither may end DONE: the step ends
// AGENT_PERMISSION_DENIED after one attempt, naming what was refused.
func TestDeniedWorkDoesNotPass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind   config.Kind
		script string
		want   []string
	}{
		{config.KindClaude, `cat "$S/claude-real-denied.jsonl"`,
			[]string{"Write /tmp/hello.txt", "Bash go version > ran.txt"}},
		{config.KindCodex, `cat "$S/codex-real-read-only.jsonl"; cat "$S/codex-real-read-only.stderr" >&2`,
			[]string{"apply_patch writing is blocked by read-only sandbox"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			h := startHarness(t, t.TempDir(), replayConfig(t, tt.kind, tt.script))
			ack := h.forward("add hello.txt")
			end, failed, starts := ran(h, ack.TaskID)
			if got := end.Payload.String("status"); got == ledger.StatusDone || end.Payload.String("reason_code") != ReasonAgentDenied {
				t.Fatalf("run ended %s (%s), want %s", got, end.Payload.String("reason_code"), ReasonAgentDenied)
			}
			if starts != 1 || len(failed) != 1 {
				t.Fatalf("%d workers started, %d step ends failed; want one of each (a denial is not restarted)", starts, len(failed))
			}
			if got := deniedOf(t, failed[0]); !slices.Equal(got, tt.want) {
				t.Errorf("denied %q, want %q", got, tt.want)
			}
			if n := count(h.events(), func(e ledger.Event) bool { return e.EventType == ledger.EventAcceptancePassed }); n != 0 {
				t.Errorf("%d ACCEPTANCE_PASSED for denied work", n)
			}
			p := ledger.LoadSnapshot(h.root).Pipeline.Value
			if got := AgentDenied(p, failed[0].StepID); got != strings.Join(tt.want, "; ") {
				t.Errorf("pipeline's denied calls %q, want %q", got, strings.Join(tt.want, "; "))
			}
		})
	}
}

// TestAuthFailureIsNotRetried replays real runs refused by the provider
// (HTTP 401, exit 1) and a Claude Code with no login: the step ends with
// the CLI's own reason after exactly one attempt, where the exit code
// alone would have had it restarted five times.
func TestAuthFailureIsNotRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		kind   config.Kind
		script string
		want   string
	}{
		{"claude 401", config.KindClaude, `cat "$S/claude-real-401.jsonl"; exit 1`, ReasonAgentAuth},
		{"codex 401", config.KindCodex, `cat "$S/codex-real-401.jsonl"; exit 1`, ReasonAgentAuth},
		{"claude not logged in", config.KindClaude, `cat "$S/claude-real-not-logged-in.jsonl"; exit 1`, ReasonAgentNotLoggedIn},
		{"claude refused option", config.KindClaude, `cat "$S/claude-real-bypass-as-root.stderr" >&2; exit 1`, ReasonAgentOptionRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := startHarness(t, t.TempDir(), replayConfig(t, tt.kind, tt.script))
			ack := h.forward("add hello.txt")
			end, failed, starts := ran(h, ack.TaskID)
			if got := end.Payload.String("reason_code"); got != tt.want || end.Payload.String("status") == ledger.StatusDone {
				t.Fatalf("run ended %s (%s), want %s", end.Payload.String("status"), got, tt.want)
			}
			if starts != 1 {
				t.Errorf("%d attempts, want exactly 1", starts)
			}
			if len(failed) == 1 && failed[0].Payload.String("agent_failure") == "" {
				t.Errorf("step end without the agent's failure: %v", failed[0].Payload)
			}
		})
	}
}

// TestFutileRetryStopsTheAgent replays the start of a real Claude Code run
// against a provider that answers 401: its first api_retry line, after
// which the real CLI would retry for about three minutes. The controller
// shows the retry, stops the CLI at once and ends the step
// AGENT_AUTH_FAILED after one attempt.
func TestFutileRetryStopsTheAgent(t *testing.T) {
	t.Parallel()
	// Both api_retry lines: the second must not turn the stop into a
	// SIGKILL. The worker ends on SIGTERM and says so.
	marker := filepath.Join(t.TempDir(), "term")
	h := startHarness(t, t.TempDir(), replayConfig(t, config.KindClaude, `trap 'echo term > "`+marker+`"; exit 143' TERM
head -3 "$S/claude-real-401.jsonl"; sleep 600 & wait`))
	ack := h.forward("add hello.txt")
	end, failed, starts := ran(h, ack.TaskID)
	if got := end.Payload.String("reason_code"); got != ReasonAgentAuth || starts != 1 {
		t.Fatalf("run ended %s after %d attempts, want %s after 1", got, starts, ReasonAgentAuth)
	}
	var retries []ledger.Event
	for _, e := range h.events() {
		if op(e) == opAgentRetry {
			retries = append(retries, e)
		}
	}
	if len(retries) != 2 || retries[0].Payload.String("error") != "authentication_failed" || !strings.Contains(string(mustGet(t, retries[0].Payload, "status")), "401") ||
		string(mustGet(t, retries[0].Payload, "stopping")) != "true" {
		t.Fatalf("AGENT_RETRY events %v", retries)
	}
	if len(failed) != 1 || failed[0].Payload.String("last_retry") != "401 authentication_failed, 2/2" {
		t.Errorf("step end %v", failed)
	}
	if got := readText(t, marker); got != "term\n" {
		t.Errorf("the worker did not end on its SIGTERM: %q", got)
	}
	if got := AgentRetrying(ledger.LoadSnapshot(h.root).Pipeline.Value, failed[0].StepID); got != "" {
		t.Errorf("the step still shows retrying %q after it ended", got)
	}
}

func mustGet(t *testing.T, o ledger.Object, key string) []byte {
	t.Helper()
	raw, ok := o.Get(key)
	if !ok {
		t.Fatalf("no %s in %v", key, o)
	}
	return raw
}

// TestDefaultLanesPassAnInstructionAfterDashes runs the default claude
// and codex lanes with stand-ins for the CLIs on PATH that record their
// arguments and print a real successful run. An instruction that starts
// with "-" reaches them as one argument after "--", with the permissions
// that let them work; Codex outside a git repository gets
// --skip-git-repo-check.
func TestDefaultLanesPassAnInstructionAfterDashes(t *testing.T) {
	bin := t.TempDir()
	streams, err := filepath.Abs(realStreams)
	if err != nil {
		t.Fatal(err)
	}
	for name, stream := range map[string]string{"claude": "claude-real-accept-edits.jsonl", "codex": "codex-real-workspace-write.jsonl"} {
		script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$ARGS_FILE\"\ncat '" + filepath.Join(streams, stream) + "'\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	const instruction = "-rf is not an option: add hello.txt"
	tests := []struct {
		kind config.Kind
		want []string
	}{
		{config.KindClaude, []string{"-p", "--output-format", "stream-json", "--verbose",
			"--permission-mode", "acceptEdits", "--allowedTools", "Bash", "--", instruction}},
		{config.KindCodex, []string{"exec", "--json", "--sandbox", "workspace-write", "--skip-git-repo-check", "--", instruction}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			root := t.TempDir()
			argsFile := filepath.Join(t.TempDir(), "args")
			cfg := shellConfig("")
			lane := config.DefaultLaneConfig(config.DefaultLane, tt.kind)
			lane.Env = config.Env{"ARGS_FILE=" + argsFile}
			cfg.Lanes = []config.Lane{lane}
			h := startHarness(t, root, cfg)
			ack := h.forward(instruction)
			if end := h.finished(ack.TaskID); end.Payload.String("status") != ledger.StatusDone {
				t.Fatalf("run ended %v", end.Payload)
			}
			got := strings.Split(strings.TrimSuffix(readText(t, argsFile), "\n"), "\n")
			if !slices.Equal(got, tt.want) {
				t.Errorf("arguments\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestAgentStreamWithoutResultIsRestarted replays the start of a real
// Claude Code run that exits 0 before its result line: a broken stream,
// not a success. It is restarted, and the restart that prints the whole
// run passes.
func TestAgentStreamWithoutResultIsRestarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := startHarness(t, t.TempDir(), replayConfig(t, config.KindClaude, `if [ -e "`+dir+`/once" ]; then cat "$S/claude-real-accept-edits.jsonl"; else
touch "`+dir+`/once"; head -3 "$S/claude-real-accept-edits.jsonl"; fi`))
	ack := h.forward("add hello.txt")
	end, failed, starts := ran(h, ack.TaskID)
	if end.Payload.String("status") != ledger.StatusDone || starts != 2 {
		t.Fatalf("run ended %s after %d attempts, want DONE after 2", end.Payload.String("status"), starts)
	}
	if len(failed) != 1 || failed[0].Payload.String("reason_code") != ReasonOutputInvalid {
		t.Errorf("first attempt's end %v, want %s", failed, ReasonOutputInvalid)
	}
}

// TestRetryIsAVisibleState replays a real Claude Code run against an
// overloaded provider, held after its api_retry line: while the CLI
// waits, the step's state in the pipeline says what it retries; once the
// CLI gives up, the step ends AGENT_RATE_LIMITED after one attempt and no
// retry is shown any more.
func TestRetryIsAVisibleState(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "go")
	h := startHarness(t, t.TempDir(), replayConfig(t, config.KindClaude, `f="$S/claude-real-429.jsonl"; head -2 "$f"
while [ ! -e "`+gate+`" ]; do sleep 0.05; done; tail -n +3 "$f"; exit 1`))
	ack := h.forward("add hello.txt")
	e := h.waitFor("AGENT_RETRY", func(e ledger.Event) bool { return e.TaskID == ack.TaskID && op(e) == opAgentRetry })
	if e.Payload.String("failure") != "rate_limited" {
		t.Errorf("AGENT_RETRY %v", e.Payload)
	}
	if _, stopping := e.Payload.Get("stopping"); stopping {
		t.Error("a 429 retry may succeed: the CLI must not be stopped")
	}
	deadline := time.Now().Add(20 * time.Second)
	for AgentRetrying(ledger.LoadSnapshot(h.root).Pipeline.Value, e.StepID) != "429 rate_limit, 1/1" {
		if time.Now().After(deadline) {
			t.Fatalf("the pipeline never showed the retry: %v", ledger.LoadSnapshot(h.root).Pipeline.Value.RoleLifecycle)
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	end, _, starts := ran(h, ack.TaskID)
	if end.Payload.String("reason_code") != ReasonAgentRateLimited || starts != 1 {
		t.Fatalf("run ended %s after %d attempts", end.Payload.String("reason_code"), starts)
	}
	if got := AgentRetrying(ledger.LoadSnapshot(h.root).Pipeline.Value, e.StepID); got != "" {
		t.Errorf("still retrying %q after the end", got)
	}
}

// TestRetryThatSucceedsPasses replays a real Claude Code run whose first
// request got a 429 and whose retry was answered: the retry is shown and
// recorded, and the step passes on its first attempt.
func TestRetryThatSucceedsPasses(t *testing.T) {
	t.Parallel()
	h := startHarness(t, t.TempDir(), replayConfig(t, config.KindClaude, `cat "$S/streams-claude-429-then-ok.jsonl"`))
	ack := h.forward("anything")
	end, _, starts := ran(h, ack.TaskID)
	if end.Payload.String("status") != ledger.StatusDone || starts != 1 {
		t.Fatalf("run ended %s (%s) after %d attempts", end.Payload.String("status"), end.Payload.String("reason_code"), starts)
	}
	if n := count(h.events(), func(e ledger.Event) bool { return op(e) == opAgentRetry }); n != 1 {
		t.Errorf("%d AGENT_RETRY events, want 1", n)
	}
}
