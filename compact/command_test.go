//go:build unix

package compact

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runOne registers one hook command at PostAccept and runs it.
func runOne(t *testing.T, ctx context.Context, spec HookSpec, in *Context) (Outcome, Result) {
	t.Helper()
	spec.Point = PostAccept
	if spec.Name == "" {
		spec.Name = "test"
	}
	h := &Hooks{}
	if err := h.AddCommand(spec); err != nil {
		t.Fatal(err)
	}
	out := h.Run(ctx, PostAccept, in, Facts{})
	if len(out.Results) != 1 {
		t.Fatalf("got %d results", len(out.Results))
	}
	return out, out.Results[0]
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func TestCommandHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		spec       HookSpec
		wantStatus Status
		wantCode   Code
		reason     string // part of the reason
		want       string // the context afterwards
	}{
		{name: "echo", spec: HookSpec{Command: sh("cat")}, want: `{"k":"v"}`},
		{name: "replace", spec: HookSpec{Command: sh(`cat >/dev/null; printf '{"relay_context":{"goal":"from hook"}}'`)},
			want: `{"relay_context":{"goal":"from hook"}}`},
		{name: "environment", spec: HookSpec{Name: "env", Command: sh(`cat >/dev/null; printf '{"p":"%s","n":"%s","x":"%s"}' "$DAOKIT_HOOK_POINT" "$DAOKIT_HOOK_NAME" "$EXTRA"`),
			Env: []string{"EXTRA=yes"}}, want: `{"p":"post-accept","n":"env","x":"yes"}`},
		{name: "fails", spec: HookSpec{Command: sh("echo boom >&2; exit 3")},
			wantStatus: StatusFailed, wantCode: CodeExit, reason: "exit status 3: boom", want: `{"k":"v"}`},
		{name: "not JSON", spec: HookSpec{Command: sh("echo not json")},
			wantStatus: StatusFailed, wantCode: CodeInvalidOutput, reason: "invalid character", want: `{"k":"v"}`},
		{name: "not an object", spec: HookSpec{Command: sh("echo '[1]'")},
			wantStatus: StatusFailed, wantCode: CodeInvalidOutput, reason: "must be a JSON object", want: `{"k":"v"}`},
		{name: "no output", spec: HookSpec{Command: sh("cat >/dev/null")},
			wantStatus: StatusFailed, wantCode: CodeInvalidOutput, want: `{"k":"v"}`},
		{name: "cannot start", spec: HookSpec{Command: []string{"/nonexistent/daokit-hook"}},
			wantStatus: StatusFailed, wantCode: CodeStart, want: `{"k":"v"}`},
		{name: "prints too much", spec: HookSpec{Command: sh("while :; do echo yyyyyyyyyyyyyyyy; done"), MaxOutput: 4096},
			wantStatus: StatusFailed, wantCode: CodeOutputTooLarge, want: `{"k":"v"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := mustParse(t, `{"k":"v"}`)
			out, res := runOne(t, context.Background(), tt.spec, in)
			if res.Status != tt.wantStatus || res.Code != tt.wantCode || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("got %v %s %q, want %v %s containing %q", res.Status, res.Code, res.Reason, tt.wantStatus, tt.wantCode, tt.reason)
			}
			if data, _ := out.Context.MarshalJSON(); string(data) != tt.want {
				t.Errorf("context: got %s, want %s", data, tt.want)
			}
			if tt.wantStatus != StatusOK && out.Context != in {
				t.Error("a skipped hook replaced the context")
			}
		})
	}
}

func TestCommandHookRunsInDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, res := runOne(t, context.Background(), HookSpec{Command: sh(`cat >/dev/null; printf '{"dir":"%s"}' "$(pwd -P)" > "$OUT"; cat "$OUT"`),
		Dir: dir, Env: []string{"OUT=" + filepath.Join(dir, "out.json")}}, &Context{})
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	real, _ := filepath.EvalSymlinks(dir)
	if res.Status != StatusOK || err != nil || !strings.Contains(string(data), real) {
		t.Errorf("got %+v, %s, %v; want the hook to run in %s", res, data, err, real)
	}
}

func TestCommandHookStopsWhenTheRunEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, res := runOne(t, ctx, HookSpec{Command: sh("sleep 30"), Timeout: time.Minute}, &Context{})
	if res.Status != StatusSkipped || res.Code != CodeCancelled {
		t.Errorf("got %+v", res)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

// TestIdempotentHookNeverReplaysForNewInput is the fix of the Python
// runtime's cache, which returned the cached result for any input with
// the same key (daokit-compat §10.14).
func TestIdempotentHookNeverReplaysForNewInput(t *testing.T) {
	t.Parallel()
	count := filepath.Join(t.TempDir(), "count")
	h := &Hooks{}
	if err := h.AddCommand(HookSpec{Point: PreDispatch, Name: "memo", Idempotent: true,
		Command: sh(`echo run >> "$COUNT"; cat`), Env: []string{"COUNT=" + count}}); err != nil {
		t.Fatal(err)
	}
	runs := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run")
	}
	first := mustParse(t, `{"n":1}`)
	for i, step := range []struct {
		in       *Context
		wantRuns int
		wantCode Code
		want     string
	}{
		{first, 1, "", `{"n":1}`},
		{mustParse(t, `{"n":1}`), 1, CodeCached, `{"n":1}`},
		{mustParse(t, `{"n":2}`), 2, "", `{"n":2}`},
	} {
		out := h.Run(context.Background(), PreDispatch, step.in, Facts{})
		data, _ := out.Context.MarshalJSON()
		if res := out.Results[0]; res.Status != StatusOK || res.Code != step.wantCode || string(data) != step.want || runs() != step.wantRuns {
			t.Errorf("run %d: got %+v, %s after %d runs; want %s after %d", i, res, data, runs(), step.want, step.wantRuns)
		}
	}
}
