package compact

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/daokit/daokit/hooks"
)

func TestHookNamesAreUniquePerPoint(t *testing.T) {
	t.Parallel()
	h := NewHooks()
	noop := func(_ context.Context, c *Context, _ Facts) (*Context, error) { return c, nil }
	if err := h.AddFunc(hooks.PreCompact, BuiltinCompact, 0, noop); !errors.Is(err, hooks.ErrDuplicateHook) {
		t.Errorf("second %q at pre-compact: got %v", BuiltinCompact, err)
	}
	if err := h.AddFunc(hooks.PostAccept, BuiltinCompact, 0, noop); err != nil {
		t.Errorf("same name at another point: %v", err)
	}
	if err := h.AddFunc(hooks.Point(42), "x", 0, noop); err == nil {
		t.Error("unknown point accepted")
	}
	if err := h.AddFunc(hooks.PreCompact, "nil", 0, nil); err == nil {
		t.Error("nil func accepted")
	}
	if got := h.Names(hooks.PreCompact); !slices.Equal(got, []string{BuiltinCompact}) {
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
	must(h.AddFunc(hooks.PostAccept, "first", 0, appendHook(`{"n":1}`)))
	must(h.AddFunc(hooks.PostAccept, "fails after changing its copy", 0, func(_ context.Context, c *Context, _ Facts) (*Context, error) {
		c.SetFacts(Facts{Goal: "half-applied"})
		return c, errors.New("disk full")
	}))
	must(h.AddFunc(hooks.PostAccept, "panics", 0, func(context.Context, *Context, Facts) (*Context, error) { panic("boom") }))
	must(h.AddFunc(hooks.PostAccept, "returns nothing", 0, func(context.Context, *Context, Facts) (*Context, error) { return nil, nil }))
	must(h.AddFunc(hooks.PostAccept, "overruns", 20*time.Millisecond, func(ctx context.Context, c *Context, _ Facts) (*Context, error) {
		<-ctx.Done() // a hook that only notices its deadline
		return c, nil
	}))
	must(h.AddFunc(hooks.PostAccept, "second", 0, func(_ context.Context, c *Context, known Facts) (*Context, error) {
		return c, c.Append(ExecutionLogs, json.RawMessage(`{"goal_seen":"`+known.Goal+`"}`))
	}))
	in := mustParse(t, `{"k": 1}`)
	out := h.Run(context.Background(), hooks.PostAccept, in, Facts{Goal: "g"})

	type res struct {
		status hooks.Status
		code   hooks.Code
	}
	var got []res
	for _, r := range out.Results {
		got = append(got, res{r.Status, r.Code})
		if r.Point != hooks.PostAccept || r.Duration < 0 {
			t.Errorf("%s: point %v, duration %v", r.Name, r.Point, r.Duration)
		}
	}
	want := []res{{hooks.StatusOK, ""}, {hooks.StatusFailed, hooks.CodeError}, {hooks.StatusFailed, hooks.CodePanic}, {hooks.StatusFailed, hooks.CodeError}, {hooks.StatusTimeout, hooks.CodeTimeout}, {hooks.StatusOK, ""}}
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
	if err := h.AddFunc(hooks.PreCompact, "after", 0, func(_ context.Context, c *Context, _ Facts) (*Context, error) {
		data, _ := c.MarshalJSON()
		seen = string(data)
		return c, nil
	}); err != nil {
		t.Fatal(err)
	}
	in := mustParse(t, `{"execution_logs": [{"status": "done"}, {"status": "running"}]}`)
	out := h.Run(context.Background(), hooks.PreCompact, in, Facts{Goal: "g"})
	if len(out.Results) != 2 || out.Results[0].Name != BuiltinCompact || out.Results[0].Status != hooks.StatusOK {
		t.Fatalf("results: %+v", out.Results)
	}
	if want := `{"execution_logs":[{"status":"running"}],"relay_context":{"goal":"g"}}`; seen != want {
		t.Errorf("the hook after compaction saw %s, want %s", seen, want)
	}
	if out.Report == nil || out.Report.Lists[ExecutionLogs].Dropped != 1 {
		t.Errorf("report: %+v", out.Report)
	}
	if got := h.Run(context.Background(), hooks.SessionStart, in, Facts{}); got.Context != in || len(got.Results) != 0 {
		t.Errorf("a point without hooks changed something: %+v", got)
	}
}

func TestRunWithEndedContextSkipsEverything(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := NewHooks()
	in := mustParse(t, `{"execution_logs": [{"status": "done"}]}`)
	out := h.Run(ctx, hooks.PreCompact, in, Facts{})
	if out.Context != in || len(out.Results) != 1 || out.Results[0].Status != hooks.StatusSkipped || out.Results[0].Code != hooks.CodeCancelled {
		t.Errorf("got %+v", out)
	}
}

// TestCommandHookAfterCompaction runs hook commands through the hooks
// package's runner: a pre-compact command reads the compacted context
// and what it prints becomes the context; one that fails is skipped.
func TestCommandHookAfterCompaction(t *testing.T) {
	t.Parallel()
	h := NewHooks()
	for _, spec := range []hooks.Spec{
		{Point: hooks.PreCompact, Name: "tag", Command: []string{"/bin/sh", "-c", `sed 's/^{/{"tag":1,/'`}},
		{Point: hooks.PreCompact, Name: "fails", Command: []string{"/bin/sh", "-c", "exit 3"}},
	} {
		if err := h.AddCommand(spec); err != nil {
			t.Fatal(err)
		}
	}
	in := mustParse(t, `{"execution_logs": [{"status": "done"}, {"status": "running"}]}`)
	out := h.Run(context.Background(), hooks.PreCompact, in, Facts{Goal: "g"})
	if len(out.Results) != 3 || out.Results[1].Status != hooks.StatusOK || out.Results[2].Code != hooks.CodeExit {
		t.Fatalf("results: %+v", out.Results)
	}
	data, _ := out.Context.MarshalJSON()
	if want := `{"tag":1,"execution_logs":[{"status":"running"}],"relay_context":{"goal":"g"}}`; string(data) != want {
		t.Errorf("context: got %s, want %s", data, want)
	}
	if out.Report == nil {
		t.Error("the built-in compaction's report is lost")
	}
}
