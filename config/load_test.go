package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	root := t.TempDir()
	got, err := Load(root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := DefaultConfig()
	want.Root = root
	if got.Root != want.Root {
		t.Errorf("Root: got %q, want %q", got.Root, want.Root)
	}
	if got.Heartbeat != want.Heartbeat || got.Lease != want.Lease || got.Restart != want.Restart || got.Controller != want.Controller {
		t.Errorf("timings: got %+v, want %+v", got, want)
	}
	if len(got.Lanes) != 1 || got.Lanes[0].Name != DefaultLane || got.Lanes[0].Kind != KindSim {
		t.Errorf("lanes: got %+v, want one sim lane %q", got.Lanes, DefaultLane)
	}
}

func TestLoadReadsTheRootFile(t *testing.T) {
	root := t.TempDir()
	data := "[heartbeat]\nstale_after = \"1m\"\n"
	if err := os.WriteFile(Path(root), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got.Heartbeat.StaleAfter.Std() != time.Minute {
		t.Errorf("stale_after: got %v, want 1m", got.Heartbeat.StaleAfter)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	root := t.TempDir()
	// A directory where the file should be cannot be read as one.
	if err := os.Mkdir(Path(root), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(root)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRead || e.File != Path(root) {
		t.Fatalf("Load: got %v, want a %s error naming %s", err, CodeRead, Path(root))
	}
}

func parseFile(t *testing.T, name string) (Config, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Parse(data, name, "/ledger")
}

func TestParseValidFiles(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, c Config)
	}{
		{"valid-empty.toml", func(t *testing.T, c Config) {
			if len(c.Lanes) != 1 || len(c.Workflow.Steps) != 1 || c.Workflow.Steps[0].Lane != DefaultLane {
				t.Errorf("got lanes %+v, steps %+v; want the defaults", c.Lanes, c.Workflow.Steps)
			}
		}},
		{"valid-partial.toml", func(t *testing.T, c Config) {
			want := Heartbeat{Duration(time.Second), Duration(10 * time.Second), Duration(30 * time.Second)}
			if c.Heartbeat != want {
				t.Errorf("heartbeat: got %+v, want %+v", c.Heartbeat, want)
			}
			if c.Lease.TTL.Std() != DefaultLeaseTTL {
				t.Errorf("lease.ttl: got %v, want the default %v", c.Lease.TTL, DefaultLeaseTTL)
			}
		}},
		{"valid-lanes-without-worker.toml", func(t *testing.T, c Config) {
			if got := c.Workflow.Steps[0].Lane; got != "agent" {
				t.Errorf("default step lane: got %q, want the first lane %q", got, "agent")
			}
		}},
		{"valid-full.toml", checkFull},
		{"valid-loop.toml", func(t *testing.T, c Config) {
			w := c.Workflow
			if w.Flow() != FlowLoop || w.MaxIterations != 4 || w.Coder != "coder" || w.Reviewer != "reviewer" ||
				w.Judge != JudgeCommand || len(w.JudgeCommand) != 3 || w.JudgeTimeout.Std() != 2*time.Minute ||
				w.Summary.EveryToolUses != 3 || w.Summary.Every.Std() != 10*time.Second {
				t.Errorf("workflow %+v", w)
			}
		}},
		{"valid-empty.toml", func(t *testing.T, c Config) {
			// A file without [workflow] keeps the sequential workflow.
			if c.Workflow.Flow() != FlowSequential || c.Workflow.Kind != "" {
				t.Errorf("kind %q, want the sequential default", c.Workflow.Kind)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := parseFile(t, tt.file)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tt.check(t, c)
		})
	}
}

func checkFull(t *testing.T, c Config) {
	if c.Controller.IdleExit != 0 {
		t.Errorf("idle_exit: got %v, want 0", c.Controller.IdleExit)
	}
	wantRestart := Restart{3, Duration(5 * time.Minute), Duration(500 * time.Millisecond), Duration(time.Minute)}
	if c.Restart != wantRestart {
		t.Errorf("restart: got %+v, want %+v", c.Restart, wantRestart)
	}
	if got := len(c.Lanes); got != 3 {
		t.Fatalf("lanes: got %d, want 3", got)
	}
	coder, reviewer, lint := c.Lanes[0], c.Lanes[1], c.Lanes[2]
	if coder.Kind != KindClaude || coder.Concurrency != 2 || coder.Timeout.Std() != time.Hour {
		t.Errorf("coder: got %+v", coder)
	}
	if want := (Env{"DEBUG=1", "GOFLAGS=-mod=mod"}); !slices.Equal(coder.Env, want) {
		t.Errorf("coder env: got %q, want %q (table entries sorted by key)", coder.Env, want)
	}
	if got, want := coder.WorkDir(c.Root), "/ledger/src"; got != want {
		t.Errorf("coder dir: got %q, want %q", got, want)
	}
	if got := coder.ResumeArgv(Vars{Session: "abc", Instruction: "go"}); !slices.Contains(got, "abc") {
		t.Errorf("coder resume argv: got %q, want the session id in it", got)
	}
	if !reviewer.Stdin || reviewer.Timeout != 0 || reviewer.Concurrency != 1 {
		t.Errorf("reviewer: got %+v", reviewer)
	}
	if got, want := lint.WorkDir(c.Root), "/tmp"; got != want {
		t.Errorf("lint dir: got %q, want %q", got, want)
	}
	if lint.StopGrace.Std() != time.Second || lint.Timeout.Std() != DefaultLaneTimeout {
		t.Errorf("lint timings: got stop_grace %v timeout %v", lint.StopGrace, lint.Timeout)
	}
	if got := c.Workflow.Steps[1].Text("fix the bug"); got != "Review the change made for: fix the bug" {
		t.Errorf("step 2 text: got %q", got)
	}
	if got := c.Workflow.Steps[0].Text("fix the bug"); got != "fix the bug" {
		t.Errorf("step 1 text: got %q, want the instruction itself", got)
	}
	specs := c.HookSpecs()
	if len(specs) != 2 {
		t.Fatalf("hooks: got %d, want 2", len(specs))
	}
	want := HookSpec{Point: HookPreCompact, Name: "save-notes", Command: []string{"./scripts/save-notes.sh"},
		Timeout: 5 * time.Second, Dir: "/ledger", Env: []string{"NOTES=1"}}
	if got := specs[0]; got.Point != want.Point || got.Name != want.Name || got.Timeout != want.Timeout ||
		got.Dir != want.Dir || !slices.Equal(got.Command, want.Command) || !slices.Equal(got.Env, want.Env) {
		t.Errorf("hook 0: got %+v, want %+v", got, want)
	}
	if got := specs[1].Timeout; got != DefaultHookTimeout {
		t.Errorf("hook 1 timeout: got %v, want the default %v", got, DefaultHookTimeout)
	}
	if got := c.HookSpecsAt(HookSessionStart); len(got) != 1 || got[0].Name != "save-notes" {
		t.Errorf("HookSpecsAt(session-start): got %+v", got)
	}
}

type wantProblem struct {
	code  Code
	key   string
	value string
}

func TestParseInvalidFiles(t *testing.T) {
	tests := []struct {
		file string
		want []wantProblem
	}{
		{"invalid-syntax.toml", []wantProblem{{CodeSyntax, "", ""}}},
		{"invalid-unknown-key.toml", []wantProblem{
			{CodeUnknownKey, "heartbeat.stale_afer", ""},
			{CodeUnknownKey, "lanes[0].concurency", ""},
			{CodeUnknownKey, "colour", ""},
		}},
		{"invalid-type.toml", []wantProblem{
			{CodeType, "restart.max_restarts", `"five"`},
			{CodeType, "lanes[0].stdin", `"yes"`},
			{CodeType, "lanes[0].command", `"my-agent {instruction}"`},
			{CodeType, "lanes[0].env", `3`},
		}},
		{"invalid-duration.toml", []wantProblem{
			{CodeDuration, "heartbeat.check_interval", `2`},
			{CodeDuration, "heartbeat.stale_after", `"45 seconds"`},
			{CodeDuration, "lanes[0].timeout", `"5 minutes"`},
		}},
		{"invalid-heartbeat-order.toml", []wantProblem{
			{CodeOrder, "heartbeat.warning_after", `"20s"`},
			{CodeOrder, "heartbeat.stale_after", `"10s"`},
		}},
		{"invalid-lease-ttl.toml", []wantProblem{{CodeOrder, "lease.ttl", `"10s"`}}},
		{"invalid-restart.toml", []wantProblem{
			{CodeTooSmall, "restart.max_restarts", `-1`},
			{CodeOrder, "restart.backoff_cap", `"5s"`},
			{CodeTooSmall, "controller.idle_exit", `"-1s"`},
		}},
		{"invalid-lanes.toml", []wantProblem{
			{CodeEnum, "lanes[0].kind", `"gpt"`},
			{CodeDuplicate, "lanes[1].name", `"worker"`},
			{CodeTooSmall, "lanes[1].concurrency", `0`},
			{CodeName, "lanes[2].name", `"has space"`},
			{CodeTooLarge, "lanes[2].concurrency", `65`},
			{CodeTooSmall, "lanes[2].timeout", `"-1m"`},
			{CodeRequired, "lanes[3].name", ""},
			{CodeRequired, "lanes[3].command", ""},
			{CodeNoInstruction, "lanes[4].command", ""},
			{CodeEnv, "lanes[4].env[1]", `"NOEQUALS"`},
			{CodeEnv, "lanes[4].env[2]", `"=empty"`},
			{CodeNoSession, "lanes[4].resume_command", ""},
		}},
		{"invalid-workflow.toml", []wantProblem{
			{CodeDuplicate, "workflow.steps[1].id", `"S1"`},
			{CodeUnknownLane, "workflow.steps[1].lane", `"tester"`},
			{CodeRequired, "workflow.steps[2].lane", ""},
		}},
		{"invalid-hooks.toml", []wantProblem{
			{CodeEnum, "hooks[0].point", `"post-merge"`},
			{CodeDuplicate, "hooks[2].name", `"notes"`},
			{CodeRequired, "hooks[2].command", ""},
			{CodeTooSmall, "hooks[2].timeout", `"0s"`},
		}},
		{"invalid-empty-lanes.toml", []wantProblem{{CodeRequired, "lanes", ""}}},
		{"invalid-flow.toml", []wantProblem{
			// A missing setting is told where its table starts.
			{CodeRequired, "workflow.judge_command", ""},
			{CodeTooSmall, "workflow.max_iterations", "0"},
			{CodeUnknownLane, "workflow.reviewer", `"critic"`},
			{CodeTooSmall, "workflow.summary.every_tool_uses", "-1"},
		}},
		{"invalid-flow-kind.toml", []wantProblem{{CodeEnum, "workflow.kind", `"parallel"`}}},
		// Values that cannot be decoded and values that fail validation
		// are told together, in the order of the file; a value that could
		// not be decoded is not told again by validation.
		{"invalid-mixed.toml", []wantProblem{
			{CodeDuration, "heartbeat.stale_after", `"zz"`},
			{CodeEnum, "lanes[0].kind", `"bogus"`},
			{CodeType, "lanes[1].command", `"not a list"`},
			{CodeTooSmall, "workflow.max_iterations", "-3"},
			{CodeEnum, "workflow.judge", `"oracle"`},
			{CodeUnknownKey, "compaction", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := parseFile(t, tt.file)
			if err == nil {
				t.Fatalf("Parse: got no error, want %d problems", len(tt.want))
			}
			if c.Root != "" || c.Lanes != nil {
				t.Errorf("Parse: got a Config with an error, want the zero Config")
			}
			got := AsErrors(err)
			for i := range max(len(got), len(tt.want)) {
				switch {
				case i >= len(got):
					t.Errorf("problem %d: missing, want %v", i, tt.want[i])
				case i >= len(tt.want):
					t.Errorf("problem %d: got unexpected %s %s %s", i, got[i].Code, got[i].Key, got[i].Value)
				default:
					g, w := got[i], tt.want[i]
					if g.Code != w.code || g.Key != w.key || g.Value != w.value {
						t.Errorf("problem %d: got %s %s %s, want %s %s %s", i, g.Code, g.Key, g.Value, w.code, w.key, w.value)
					}
					if g.File != tt.file {
						t.Errorf("problem %d: File got %q, want %q", i, g.File, tt.file)
					}
				}
			}
		})
	}
}

func TestSyntaxErrorHasLine(t *testing.T) {
	_, err := parseFile(t, "invalid-syntax.toml")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if e.Line != 2 || e.Detail == "" {
		t.Errorf("got line %d detail %q, want line 2 and the parser's message", e.Line, e.Detail)
	}
}
