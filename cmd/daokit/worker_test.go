package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runWorkerCLI runs "daokit worker …" in-process with an English
// environment.
func runWorkerCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"worker"}, args...),
		stdio{in: strings.NewReader(""), out: &out, err: &errOut}, func(string) string { return "" }, nil)
	return out.String(), errOut.String(), code
}

func TestWorkerSim(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHas  []string
		stderrHas  []string
		stdoutLack []string
	}{
		{"runs and reports", []string{"sim", "--duration", "0", "fix", "the", "bug"}, 0,
			[]string{`{"type":"session"`, "Planning: fix the bug", `{"type":"result","summary":"Changed 2 files for: fix the bug"}`}, nil, nil},
		{"speaks Chinese", []string{"sim", "--duration", "0", "--lang", "zh-CN", "修复"}, 0,
			[]string{"正在规划：修复"}, nil, nil},
		{"instruction after --", []string{"sim", "--duration", "0", "--", "--not-a-flag"}, 0,
			[]string{"Planning: --not-a-flag"}, nil, nil},
		{"fails on request", []string{"sim", "--duration", "0", "--exit-code", "3", "x"}, 3,
			[]string{`"ok":false`}, nil, []string{"E_"}},
		{"crashes on request", []string{"sim", "--duration", "0", "--crash-after", "2", "x"}, 70,
			nil, []string{"Simulated crash after 2 lines"}, []string{`"type":"result"`}},
		{"floods", []string{"sim", "--flood-lines", "300", "x"}, 0,
			[]string{"Flood line 300 for: x"}, nil, nil},
		{"negative lines", []string{"sim", "--lines", "-1"}, exitUsage,
			nil, []string{"--lines must not be negative"}, nil},
		{"bad duration", []string{"sim", "--duration", "soon"}, exitUsage,
			nil, []string{"soon"}, nil},
		{"no kind", nil, exitUsage, nil, []string{"name a built-in worker"}, nil},
		{"unknown kind", []string{"gpt"}, exitUsage, nil, []string{`unknown worker "gpt"`}, nil},
		{"help", []string{"--help"}, 0, []string{"daokit worker sim", "sim"}, nil, nil},
		{"sim help", []string{"sim", "--help"}, 0, []string{"--hang-after", "--flood-rate", "--ignore-term"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runWorkerCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit code: got %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			for _, want := range tt.stdoutHas {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			for _, want := range tt.stderrHas {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q: %q", want, errOut)
				}
			}
			for _, bad := range tt.stdoutLack {
				if strings.Contains(out, bad) || strings.Contains(errOut, bad) {
					t.Errorf("output has %q:\n%s%s", bad, out, errOut)
				}
			}
		})
	}
}

func TestWorkerSimIsDeterministic(t *testing.T) {
	t.Parallel()
	a, _, _ := runWorkerCLI(t, "sim", "--duration", "0", "--seed", "42", "--lines", "15", "same instruction")
	b, _, _ := runWorkerCLI(t, "sim", "--duration", "0", "--seed", "42", "--lines", "15", "same instruction")
	c, _, _ := runWorkerCLI(t, "sim", "--duration", "0", "--seed", "43", "--lines", "15", "same instruction")
	if a != b || a == c {
		t.Errorf("same seed equal: %v (want true); other seed equal: %v (want false)", a == b, a == c)
	}
}
