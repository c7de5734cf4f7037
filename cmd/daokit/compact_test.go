package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compactCLI runs `daokit compact` in-process with stdin and an English
// environment unless env says otherwise.
func compactCLI(t *testing.T, stdin string, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string { return env[k] }
	code = run(context.Background(), append([]string{"compact"}, args...), stdio{in: strings.NewReader(stdin), out: &out, err: &errOut}, getenv, nil)
	return out.String(), errOut.String(), code
}

const compactInput = `{"relay_context": {"goal": " Ship it ", "note": "x"},
  "execution_logs": [{"status": "done"}, {"status": "running", "message": "m"}, {"status": "running", "message": "m"}],
  "evidence_paths": ["logs/stdout.txt", "reports/a.md"]}`

const compactOutput = `{
  "relay_context": {
    "goal": "Ship it"
  },
  "execution_logs": [
    {
      "status": "running",
      "message": "m"
    }
  ],
  "evidence_paths": [
    "reports/a.md"
  ]
}
`

func TestCompactCommandStdinAndFile(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := compactCLI(t, compactInput, nil)
	if code != 0 || stdout != compactOutput || stderr != "" {
		t.Fatalf("stdin: code %d, stderr %q, stdout\n%s", code, stderr, stdout)
	}
	file := filepath.Join(t.TempDir(), "context.json")
	if err := os.WriteFile(file, []byte(compactInput), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, _, code := compactCLI(t, "ignored", nil, file); code != 0 || stdout != compactOutput {
		t.Errorf("file: code %d, stdout\n%s", code, stdout)
	}
	if stdout, _, code := compactCLI(t, compactInput, nil, "-"); code != 0 || stdout != compactOutput {
		t.Errorf("-: code %d, stdout\n%s", code, stdout)
	}
	// Options may follow FILE, as with argparse.
	if stdout, stderr, code := compactCLI(t, "", nil, file, "--report"); code != 0 || stdout != compactOutput || !strings.Contains(stderr, "total") {
		t.Errorf("FILE --report: code %d, stderr %q", code, stderr)
	}
	// The output is its own fixed point.
	if again, _, code := compactCLI(t, compactOutput, nil); code != 0 || again != compactOutput {
		t.Errorf("compacting the output changed it:\n%s", again)
	}
}

func TestCompactCommandReport(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := compactCLI(t, compactInput, nil, "--report")
	if code != 0 || stdout != compactOutput {
		t.Fatalf("code %d, stdout\n%s", code, stdout)
	}
	for _, want := range []string{
		"list", "before", "kept", "dropped", "merged",
		"execution_logs   3", "total", "dropped: 1 finished, 1 noise", "merged: 1 duplicate",
		"relay_context: dropped note", "bytes of compact JSON",
		fmt.Sprintf("read %d bytes, wrote %d bytes", len(compactInput), len(compactOutput)),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("report lacks %q:\n%s", want, stderr)
		}
	}
	_, zh, _ := compactCLI(t, compactInput, nil, "--report", "--lang", "zh-CN")
	for _, want := range []string{"列表", "压缩前", "合计", "丢弃原因：已完成 1 条、噪声 1 条"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese report lacks %q:\n%s", want, zh)
		}
	}
}

func TestCompactCommandJSONReport(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := compactCLI(t, compactInput, nil, "--json")
	if code != 0 || stdout != compactOutput {
		t.Fatalf("code %d, stdout\n%s", code, stdout)
	}
	var rep struct {
		Lists []struct {
			List    string `json:"list"`
			Before  int    `json:"before"`
			Kept    int    `json:"kept"`
			Dropped int    `json:"dropped"`
			Merged  int    `json:"merged"`
		} `json:"lists"`
		EntriesBefore int `json:"entries_before"`
		EntriesAfter  int `json:"entries_after"`
		InputBytes    int `json:"input_bytes"`
		OutputBytes   int `json:"output_bytes"`
	}
	if err := json.Unmarshal([]byte(stderr), &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stderr)
	}
	if rep.EntriesBefore != 5 || rep.EntriesAfter != 2 || rep.InputBytes != len(compactInput) || rep.OutputBytes != len(compactOutput) ||
		len(rep.Lists) != 5 || rep.Lists[0].List != "execution_logs" || rep.Lists[0].Kept != 1 || rep.Lists[0].Merged != 1 {
		t.Errorf("report: %+v", rep)
	}
}

func TestCompactCommandFillsFromTheLedger(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	pipeline := `{"schema_version":"1.0.0","task_id":"DKT-9","run_id":"R-9","goal":"ledger goal","status":"EXECUTE",
		"current_step":"S1","steps":[],"role_lifecycle":{"orchestrator":"idle","controller_lane":"controller"},
		"succession":{"enabled":true,"last_takeover_at":null},"updated_at":"2026-02-12T07:02:08+00:00"}`
	if err := os.WriteFile(filepath.Join(root, "state", "pipeline_state.json"), []byte(pipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `{"execution_logs": [{"run_id": "R-8", "status": "running"}, {"run_id": "R-9", "status": "running"}]}`
	want := `{
  "execution_logs": [
    {
      "run_id": "R-9",
      "status": "running"
    }
  ],
  "relay_context": {
    "goal": "ledger goal",
    "current_blockers": [],
    "controller_route_summary": {
      "task_id": "DKT-9",
      "run_id": "R-9",
      "active_lane": "controller",
      "active_step": "S1"
    }
  }
}
`
	for _, args := range [][]string{{"--root", root}, {"--ledger", filepath.Join(root, "state", "pipeline_state.json")}, {"--root", root, "--ledger", "state/pipeline_state.json"}} {
		if stdout, stderr, code := compactCLI(t, in, nil, args...); code != 0 || stdout != want {
			t.Errorf("%q: code %d, stderr %q, stdout\n%s", args, code, stderr, stdout)
		}
	}
	// Without --root or --ledger the working directory's ledger is not read.
	if stdout, _, _ := compactCLI(t, in, nil); strings.Contains(stdout, "ledger goal") {
		t.Error("a ledger was used without --root or --ledger")
	}
	_, stderr, code := compactCLI(t, in, nil, "--root", t.TempDir())
	if code != 1 || !strings.HasPrefix(stderr, "E_COMPACT_FAILED: cannot use the ledger ") || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing ledger: code %d, stderr %q", code, stderr)
	}
}

func TestCompactCommandErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"invalid JSON", `{"a": [1, 2}`, nil, 1, "E_COMPACT_FAILED: standard input is not valid JSON: unexpected character '}' at line 1, column 12\n"},
		{"truncated", "{\n  \"a\": ", nil, 1, "E_COMPACT_FAILED: standard input is not valid JSON: it ends too early (line 2, column 8)\n"},
		{"trailing data", `{} {}`, nil, 1, "E_COMPACT_FAILED: standard input is not valid JSON: extra data after the object at line 1, column 4\n"},
		{"empty", ``, nil, 1, "E_COMPACT_FAILED: standard input is not valid JSON: it ends too early (line 1, column 1)\n"},
		{"not an object", `[{"a": 1}]`, nil, 1, "E_COMPACT_FAILED: standard input is not a relay context: its top level must be a JSON object\n"},
		{"missing file", ``, []string{"/nonexistent/context.json"}, 1, "E_COMPACT_FAILED: cannot read /nonexistent/context.json: no such file or directory\n"},
		{"two files", `{}`, []string{"a.json", "b.json"}, 2, "daokit compact: error: unexpected arguments: b.json (see daokit compact --help)\n"},
		{"after --", `{}`, []string{"--", "a.json", "--report"}, 2, "daokit compact: error: unexpected arguments: --report (see daokit compact --help)\n"},
		{"unknown option after FILE", `{}`, []string{"a.json", "--nope"}, 2, "daokit compact: error: unknown option --nope (see daokit compact --help)\n"},
		{"Chinese", `{"a": tru}`, []string{"--lang", "zh-CN"}, 1, "E_COMPACT_FAILED: 标准输入 不是合法的 JSON：第 1 行第 10 列出现意外字符 '}'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := compactCLI(t, tt.stdin, nil, tt.args...)
			if code != tt.code || stderr != tt.stderr || stdout != "" {
				t.Errorf("got code %d, stderr %q, stdout %q; want code %d, stderr %q", code, stderr, stdout, tt.code, tt.stderr)
			}
		})
	}
}

func TestCompactCommandHelp(t *testing.T) {
	t.Parallel()
	stdout, _, code := compactCLI(t, "", nil, "--help")
	for _, want := range []string{"Usage: daokit compact", "[FILE]", "--report", "--json", "--ledger", "--root"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q (code %d):\n%s", want, code, stdout)
		}
	}
}
