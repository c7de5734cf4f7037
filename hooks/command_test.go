//go:build unix

package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOne registers one hook command at PostAccept and runs it.
func runOne(t *testing.T, ctx context.Context, spec Spec, in []byte) (Outcome, Result) {
	t.Helper()
	spec.Point = PostAccept
	if spec.Name == "" {
		spec.Name = "test"
	}
	s := &Set{}
	if err := s.Add(spec); err != nil {
		t.Fatal(err)
	}
	out := s.Run(ctx, PostAccept, in)
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
		spec       Spec
		wantStatus Status
		wantCode   Code
		reason     string // part of the reason
		want       string // the context afterwards
	}{
		{name: "echo", spec: Spec{Command: sh("cat")}, want: `{"k":"v"}`},
		{name: "replace", spec: Spec{Command: sh(`cat >/dev/null; printf '{"relay_context":{"goal":"from hook"}}'`)},
			want: `{"relay_context":{"goal":"from hook"}}`},
		{name: "environment", spec: Spec{Name: "env", Command: sh(`cat >/dev/null; printf '{"p":"%s","n":"%s","x":"%s"}' "$DAOKIT_HOOK_POINT" "$DAOKIT_HOOK_NAME" "$EXTRA"`),
			Env: []string{"EXTRA=yes"}}, want: `{"p":"post-accept","n":"env","x":"yes"}`},
		{name: "fails", spec: Spec{Command: sh("echo boom >&2; exit 3")},
			wantStatus: StatusFailed, wantCode: CodeExit, reason: "exit status 3: boom", want: `{"k":"v"}`},
		{name: "not JSON", spec: Spec{Command: sh("echo not json")},
			wantStatus: StatusFailed, wantCode: CodeInvalidOutput, reason: "invalid character", want: `{"k":"v"}`},
		{name: "not an object", spec: Spec{Command: sh("echo '[1]'")},
			wantStatus: StatusFailed, wantCode: CodeInvalidOutput, reason: "must be a JSON object", want: `{"k":"v"}`},
		{name: "no output", spec: Spec{Command: sh("cat >/dev/null")},
			wantStatus: StatusFailed, wantCode: CodeInvalidOutput, want: `{"k":"v"}`},
		{name: "cannot start", spec: Spec{Command: []string{"/nonexistent/daokit-hook"}},
			wantStatus: StatusFailed, wantCode: CodeStart, want: `{"k":"v"}`},
		{name: "prints too much", spec: Spec{Command: sh("while :; do echo yyyyyyyyyyyyyyyy; done"), MaxOutput: 4096},
			wantStatus: StatusFailed, wantCode: CodeOutputTooLarge, want: `{"k":"v"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(`{"k":"v"}`)
			out, res := runOne(t, context.Background(), tt.spec, in)
			if res.Status != tt.wantStatus || res.Code != tt.wantCode || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("got %v %s %q, want %v %s containing %q", res.Status, res.Code, res.Reason, tt.wantStatus, tt.wantCode, tt.reason)
			}
			if string(out.Output) != tt.want {
				t.Errorf("output: got %s, want %s", out.Output, tt.want)
			}
			if tt.wantStatus != StatusOK && &out.Output[0] != &in[0] {
				t.Error("a skipped hook replaced the input")
			}
		})
	}
}

func TestCommandHookRunsInDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, res := runOne(t, context.Background(), Spec{Command: sh(`cat >/dev/null; printf '{"dir":"%s"}' "$(pwd -P)" > "$OUT"; cat "$OUT"`),
		Dir: dir, Env: []string{"OUT=" + filepath.Join(dir, "out.json")}}, []byte(`{}`))
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	real, _ := filepath.EvalSymlinks(dir)
	if res.Status != StatusOK || err != nil || !strings.Contains(string(data), real) {
		t.Errorf("got %+v, %s, %v; want the hook to run in %s", res, data, err, real)
	}
}

// TestIdempotentHookNeverReplaysForNewInput is the fix of the Python
// runtime's cache, which returned the cached result for any input with
// the same key (daokit-compat §10.14).
func TestIdempotentHookNeverReplaysForNewInput(t *testing.T) {
	t.Parallel()
	count := filepath.Join(t.TempDir(), "count")
	s := &Set{}
	if err := s.Add(Spec{Point: PreDispatch, Name: "memo", Idempotent: true,
		Command: sh(`echo run >> "$COUNT"; cat`), Env: []string{"COUNT=" + count}}); err != nil {
		t.Fatal(err)
	}
	runs := func() int {
		data, _ := os.ReadFile(count)
		return strings.Count(string(data), "run")
	}
	first := []byte(`{"n":1}`)
	for i, step := range []struct {
		in       []byte
		wantRuns int
		wantCode Code
		want     string
	}{
		{first, 1, "", `{"n":1}`},
		{[]byte(`{"n":1}`), 1, CodeCached, `{"n":1}`},
		{[]byte(`{"n":2}`), 2, "", `{"n":2}`},
	} {
		out := s.Run(context.Background(), PreDispatch, step.in)
		data := out.Output
		if res := out.Results[0]; res.Status != StatusOK || res.Code != step.wantCode || string(data) != step.want || runs() != step.wantRuns {
			t.Errorf("run %d: got %+v, %s after %d runs; want %s after %d", i, res, data, runs(), step.want, step.wantRuns)
		}
	}
}
