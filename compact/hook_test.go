package compact

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestParsePoint(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Point{
		"pre-dispatch": PreDispatch, "POST_ACCEPT": PostAccept, " pre_compact ": PreCompact, "Session-Start": SessionStart,
	} {
		if got, err := ParsePoint(in); err != nil || got != want {
			t.Errorf("ParsePoint(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, err := ParsePoint("post-compact")
	var upe *UnknownPointError
	if !errors.As(err, &upe) || upe.Value != "post-compact" {
		t.Fatalf("got %v, want an *UnknownPointError", err)
	}
	if got, want := err.Error(), `unknown hook point "post-compact"; expected one of: pre-dispatch, post-accept, pre-compact, session-start`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Point(0).String(); got != "Point(0)" {
		t.Errorf("zero point prints %q", got)
	}
}

// TestHookSpecFromTOML decodes the daokit.toml shape documented on
// HookSpec.
func TestHookSpecFromTOML(t *testing.T) {
	t.Parallel()
	var cfg struct {
		Hooks   []HookSpec `toml:"hooks"`
		Compact Triggers   `toml:"compact"`
	}
	_, err := toml.Decode(`
[compact]
max_entries = 200
repeated_status = 4

[[hooks]]
point = "PRE_COMPACT"
name = "redact"
command = ["jq", "."]
timeout = "5s"
env = ["LEVEL=2"]
idempotent = true

[[hooks]]
point = "session-start"
name = "hello"
command = ["sh", "-c", "cat"]
`, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []HookSpec{
		{Point: PreCompact, Name: "redact", Command: []string{"jq", "."}, Timeout: 5 * time.Second, Env: []string{"LEVEL=2"}, Idempotent: true},
		{Point: SessionStart, Name: "hello", Command: []string{"sh", "-c", "cat"}},
	}
	if len(cfg.Hooks) != len(want) {
		t.Fatalf("got %d hooks", len(cfg.Hooks))
	}
	for i := range want {
		got := cfg.Hooks[i]
		if got.Point != want[i].Point || got.Name != want[i].Name || !slices.Equal(got.Command, want[i].Command) ||
			got.Timeout != want[i].Timeout || !slices.Equal(got.Env, want[i].Env) || got.Idempotent != want[i].Idempotent {
			t.Errorf("hook %d: got %+v, want %+v", i, got, want[i])
		}
		if err := got.Validate(); err != nil {
			t.Errorf("hook %d: %v", i, err)
		}
	}
	if cfg.Compact != (Triggers{MaxEntries: 200, RepeatedStatus: 4}) {
		t.Errorf("triggers: got %+v", cfg.Compact)
	}
	if _, err := toml.Decode("[[hooks]]\npoint = \"post-compact\"\n", &cfg); err == nil {
		t.Error("an unknown point decoded")
	}
}

func TestHookSpecValidate(t *testing.T) {
	t.Parallel()
	good := HookSpec{Point: PreCompact, Name: "x", Command: []string{"cat"}}
	for name, mutate := range map[string]func(*HookSpec){
		"no point":         func(s *HookSpec) { s.Point = 0 },
		"no name":          func(s *HookSpec) { s.Name = " " },
		"no command":       func(s *HookSpec) { s.Command = nil },
		"blank program":    func(s *HookSpec) { s.Command = []string{""} },
		"negative timeout": func(s *HookSpec) { s.Timeout = -time.Second },
		"negative output":  func(s *HookSpec) { s.MaxOutput = -1 },
		"bad env":          func(s *HookSpec) { s.Env = []string{"NOEQUALS"} },
	} {
		spec := good
		mutate(&spec)
		if err := spec.Validate(); err == nil {
			t.Errorf("%s: Validate() = nil", name)
		}
		if err := NewHooks().AddCommand(spec); err == nil {
			t.Errorf("%s: AddCommand accepted it", name)
		}
	}
}

func TestHookNamesAreUniquePerPoint(t *testing.T) {
	t.Parallel()
	h := NewHooks()
	noop := func(_ context.Context, c *Context, _ Facts) (*Context, error) { return c, nil }
	if err := h.AddFunc(PreCompact, BuiltinCompact, 0, noop); !errors.Is(err, ErrDuplicateHook) {
		t.Errorf("second %q at pre-compact: got %v", BuiltinCompact, err)
	}
	if err := h.AddFunc(PostAccept, BuiltinCompact, 0, noop); err != nil {
		t.Errorf("same name at another point: %v", err)
	}
	if err := h.AddFunc(Point(42), "x", 0, noop); err == nil {
		t.Error("unknown point accepted")
	}
	if err := h.AddFunc(PreCompact, "nil", 0, nil); err == nil {
		t.Error("nil func accepted")
	}
	if got := h.Names(PreCompact); !slices.Equal(got, []string{BuiltinCompact}) {
		t.Errorf("Names(pre-compact) = %q", got)
	}
}

func appendHook(entry string) Func {
	return func(_ context.Context, c *Context, _ Facts) (*Context, error) {
		return c, c.Append(ExecutionLogs, json.RawMessage(entry))
	}
}

func TestRunGoHooks(t *testing.T) {
	t.Parallel()
	h := &Hooks{}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.AddFunc(PostAccept, "first", 0, appendHook(`{"n":1}`)))
	must(h.AddFunc(PostAccept, "fails after changing its copy", 0, func(_ context.Context, c *Context, _ Facts) (*Context, error) {
		c.SetFacts(Facts{Goal: "half-applied"})
		return c, errors.New("disk full")
	}))
	must(h.AddFunc(PostAccept, "panics", 0, func(context.Context, *Context, Facts) (*Context, error) { panic("boom") }))
	must(h.AddFunc(PostAccept, "returns nothing", 0, func(context.Context, *Context, Facts) (*Context, error) { return nil, nil }))
	must(h.AddFunc(PostAccept, "overruns", 20*time.Millisecond, func(ctx context.Context, c *Context, _ Facts) (*Context, error) {
		<-ctx.Done() // a hook that only notices its deadline
		return c, nil
	}))
	must(h.AddFunc(PostAccept, "second", 0, func(_ context.Context, c *Context, known Facts) (*Context, error) {
		return c, c.Append(ExecutionLogs, json.RawMessage(`{"goal_seen":"`+known.Goal+`"}`))
	}))
	in := mustParse(t, `{"k": 1}`)
	out := h.Run(context.Background(), PostAccept, in, Facts{Goal: "g"})

	type res struct {
		status Status
		code   Code
	}
	var got []res
	for _, r := range out.Results {
		got = append(got, res{r.Status, r.Code})
		if r.Point != PostAccept || r.Duration < 0 {
			t.Errorf("%s: point %v, duration %v", r.Name, r.Point, r.Duration)
		}
	}
	want := []res{{StatusOK, ""}, {StatusFailed, CodeError}, {StatusFailed, CodePanic}, {StatusFailed, CodeError}, {StatusTimeout, CodeTimeout}, {StatusOK, ""}}
	if !slices.Equal(got, want) {
		t.Errorf("results: got %v, want %v", got, want)
	}
	if out.Results[1].Reason != "disk full" || out.Results[2].Reason != "boom" {
		t.Errorf("reasons: %q, %q", out.Results[1].Reason, out.Results[2].Reason)
	}
	data, _ := out.Context.MarshalJSON()
	if want := `{"k":1,"execution_logs":[{"n":1},{"goal_seen":"g"}]}`; string(data) != want {
		t.Errorf("context: got %s, want %s", data, want)
	}
	if data, _ := in.MarshalJSON(); string(data) != `{"k":1}` {
		t.Errorf("Run changed its input: %s", data)
	}
	if out.Report != nil {
		t.Error("a report without the built-in compaction")
	}
}

func TestRunBuiltinCompaction(t *testing.T) {
	t.Parallel()
	h := NewHooks()
	var seen string
	if err := h.AddFunc(PreCompact, "after", 0, func(_ context.Context, c *Context, _ Facts) (*Context, error) {
		data, _ := c.MarshalJSON()
		seen = string(data)
		return c, nil
	}); err != nil {
		t.Fatal(err)
	}
	in := mustParse(t, `{"execution_logs": [{"status": "done"}, {"status": "running"}]}`)
	out := h.Run(context.Background(), PreCompact, in, Facts{Goal: "g"})
	if len(out.Results) != 2 || out.Results[0].Name != BuiltinCompact || out.Results[0].Status != StatusOK {
		t.Fatalf("results: %+v", out.Results)
	}
	if want := `{"execution_logs":[{"status":"running"}],"relay_context":{"goal":"g"}}`; seen != want {
		t.Errorf("the hook after compaction saw %s, want %s", seen, want)
	}
	if out.Report == nil || out.Report.Lists[ExecutionLogs].Dropped != 1 {
		t.Errorf("report: %+v", out.Report)
	}
	if got := h.Run(context.Background(), SessionStart, in, Facts{}); got.Context != in || len(got.Results) != 0 {
		t.Errorf("a point without hooks changed something: %+v", got)
	}
}

func TestRunWithEndedContextSkipsEverything(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := NewHooks()
	in := mustParse(t, `{"execution_logs": [{"status": "done"}]}`)
	out := h.Run(ctx, PreCompact, in, Facts{})
	if out.Context != in || len(out.Results) != 1 || out.Results[0].Status != StatusSkipped || out.Results[0].Code != CodeCancelled {
		t.Errorf("got %+v", out)
	}
}

func TestStatusNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[Status]string{StatusOK: "ok", StatusSkipped: "skipped", StatusFailed: "failed", StatusTimeout: "timeout"} {
		if got := s.String(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	data, err := json.Marshal(Result{Name: "x", Point: PreCompact, Status: StatusTimeout, Code: CodeTimeout})
	if want := `{"name":"x","point":"pre-compact","status":"timeout","duration_ns":0,"code":"HOOK_TIMEOUT"}`; err != nil || string(data) != want {
		t.Errorf("got %s, %v; want %s", data, err, want)
	}
}
