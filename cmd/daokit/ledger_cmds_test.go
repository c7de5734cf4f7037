package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

func initRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if r := runCLI(t, nil, "init", "--root", root); r.code != 0 {
		t.Fatalf("init: code %d stderr %q", r.code, r.stderr)
	}
	return root
}

func TestInitCreatesThenLeavesAlone(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	first := runCLI(t, nil, "init", "--root", root)
	if first.code != 0 || !strings.Contains(first.stdout, "Initialized DAOKit skeleton at: "+root) {
		t.Fatalf("first init: %+v", first)
	}
	for _, want := range []string{"  + src", "  + state/pipeline_state.json", "  + state/events.jsonl"} {
		if !strings.Contains(first.stdout, want) {
			t.Errorf("first init lacks %q:\n%s", want, first.stdout)
		}
	}
	before, _ := os.ReadFile(filepath.Join(root, "state", "pipeline_state.json"))
	second := runCLI(t, nil, "init", "--root", root)
	if second.code != 0 || strings.Contains(second.stdout, "Created:") || !strings.Contains(second.stdout, "  = state/pipeline_state.json") {
		t.Fatalf("second init: %+v", second)
	}
	after, _ := os.ReadFile(filepath.Join(root, "state", "pipeline_state.json"))
	if string(before) != string(after) {
		t.Errorf("init rewrote an existing state file")
	}
}

func TestInitRefusesAFileWhereAFolderBelongs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "state"), []byte("x"), 0o644)
	r := runCLI(t, nil, "init", "--root", root)
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, "E_INIT_FAILED: expected directory at '") {
		t.Fatalf("got %+v", r)
	}
}

func TestStatusOfAFreshLedger(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	r := runCLI(t, nil, "status", "--root", root)
	want := "task_id=None run_id=None status=PLANNING current_step=None heartbeat=IDLE leases=0 handoff=no\n"
	if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("status: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	j := runCLI(t, nil, "status", "--root", root, "--json")
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, j.stdout)
	}
	for _, key := range []string{"pipeline_state", "heartbeat_status", "leases", "handoff_package"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("status --json lacks %s", key)
		}
	}
	if string(doc["handoff_package"]) != "null" || string(doc["leases"]) != "[]" {
		t.Errorf("handoff %s leases %s", doc["handoff_package"], doc["leases"])
	}
}

func TestStatusShowsLeasesInChinese(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	p := ledger.NewPipelineState(now)
	p.TaskID, p.RunID, p.Goal, p.Status, p.CurrentStep = "DKT-1", "RUN-1", "修复登录", ledger.StatusExecute, "S1"
	p.Steps = []ledger.Step{{ID: "S1", Title: "实现", Category: "implementation", Goal: "g"}}
	if _, err := store.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	reg := ledger.NewLeases(now)
	reg.Leases = []ledger.Lease{{Lane: "worker", StepID: "S1", TaskID: "DKT-1", RunID: "RUN-1", ThreadID: "w-1", PID: 4242,
		LeaseToken: "lease_x", Expiry: ledger.FormatTime(now.Add(time.Hour)), Status: ledger.LeaseActive,
		LastHeartbeatAt: ledger.FormatTime(now), CreatedAt: ledger.FormatTime(now), UpdatedAt: ledger.FormatTime(now)}}
	if _, err := store.WriteLeases(reg); err != nil {
		t.Fatal(err)
	}
	store.Close()
	r := runCLI(t, nil, "status", "--root", root, "--lang", "zh-CN")
	for _, want := range []string{"task_id=DKT-1 run_id=RUN-1 status=EXECUTE current_step=S1 heartbeat=IDLE leases=1 handoff=no", "目标：修复登录", "进程号", "4242", "ACTIVE"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status in Chinese lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestStatusOfAMissingRootIsOneClearLine(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "status", "--root", filepath.Join(t.TempDir(), "nope"))
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, "E_STATUS_FAILED: ") ||
		!strings.Contains(r.stderr, "nope does not exist; to start a ledger there: daokit init --root ") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("got %+v", r)
	}
}

func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "state", name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckVerdictsAndExitCodes(t *testing.T) {
	t.Parallel()
	fresh := initRoot(t)
	r := runCLI(t, nil, "check", "--root", fresh)
	if r.code != 0 || r.stdout != "Health check: PASS\npipeline_status=PLANNING\nheartbeat=IDLE silence_seconds=0\nlease_count=0\n" {
		t.Fatalf("fresh: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}

	stale := initRoot(t)
	p := ledger.NewPipelineState(time.Now())
	p.TaskID, p.RunID, p.Status = "T", "R", ledger.StatusExecute
	doc, _ := ledger.MarshalDocument(p)
	writeFile(t, stale, "pipeline_state.json", string(doc))
	r = runCLI(t, nil, "check", "--root", stale, "--json")
	var got struct {
		Health    string `json:"health"`
		Heartbeat struct {
			Status  string `json:"status"`
			Reason  string `json:"reason_code"`
			Silence int    `json:"silence_seconds"`
		} `json:"heartbeat"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("check --json: %v\n%s", err, r.stdout)
	}
	if r.code != exitStale || got.Health != "WARN" || got.Heartbeat.Status != "STALE" || got.Heartbeat.Reason != "NO_OUTPUT_20M" || got.Heartbeat.Silence != 1200 {
		t.Fatalf("EXECUTE with no signal: code %d %+v", r.code, got)
	}
	// Fresh output in the artifacts counts as a heartbeat.
	os.WriteFile(filepath.Join(stale, "artifacts", "out.log"), []byte("x"), 0o644)
	if r = runCLI(t, nil, "check", "--root", stale); r.code != 0 || !strings.Contains(r.stdout, "heartbeat=ACTIVE") {
		t.Fatalf("with fresh output: code %d stdout %q", r.code, r.stdout)
	}
}

func TestCheckReportsBrokenStateWithTheField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content, wantCode, wantText string
	}{
		{"invalid JSON", "pipeline_state.json", "{not json", "E_CHECK_STATE_INVALID", "pipeline_state.json: the content is not valid JSON"},
		{"empty file", "heartbeat_status.json", "", "E_CHECK_STATE_INVALID", "heartbeat_status.json: the file is empty"},
		{"bad enum", "heartbeat_status.json", `{"schema_version":"1.0.0","status":"SLEEPY","last_heartbeat_at":null,"reason_code":null,"updated_at":"2026-11-22T01:45:10+00:00"}`, "E_CHECK_STATE_INVALID", "field status must be one of IDLE, RUNNING, WARNING, STALE, BLOCKED"},
		{"bad pid", "process_leases.json", `{"schema_version":"1.0.0","leases":[{"lane":"c","step_id":"S1","task_id":"T","run_id":"R","thread_id":"x","pid":0,"lease_token":"t","expiry":"2026-11-22T01:45:10+00:00","status":"ACTIVE","last_heartbeat_at":"2026-11-22T01:45:10+00:00","created_at":"2026-11-22T01:45:10+00:00","updated_at":"2026-11-22T01:45:10+00:00"}],"updated_at":"2026-11-22T01:45:10+00:00"}`, "E_CHECK_STATE_INVALID", "field leases[0].pid must be >= 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := initRoot(t)
			writeFile(t, root, tt.file, tt.content)
			r := runCLI(t, nil, "check", "--root", root)
			if r.code != exitFailure || !strings.Contains(r.stderr, tt.wantCode+": ") || !strings.Contains(r.stderr, tt.wantText) {
				t.Fatalf("code %d stderr %q, want %s with %q", r.code, r.stderr, tt.wantCode, tt.wantText)
			}
		})
	}
	root := initRoot(t)
	os.Remove(filepath.Join(root, "state", "events.jsonl"))
	if r := runCLI(t, nil, "check", "--root", root); r.code != exitFailure || r.stderr != "E_CHECK_LAYOUT_MISSING: missing required file: state/events.jsonl\n" {
		t.Fatalf("missing events: %+v", r)
	}
}

func TestCheckReadsPythonExtrasAsNotes(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	writeFile(t, root, "pipeline_state.json", `{"schema_version":"1.0.0","task_id":"DKT-1","run_id":"R","goal":"g","status":"DONE","current_step":"S1",
"steps":[{"id":"S1","title":"t","category":"c","goal":"g","actions":[],"acceptance_criteria":[],"expected_outputs":[],"dependencies":[],"planner_source":"bootstrap_default"}],
"role_lifecycle":{"orchestrator":"transition_complete"},"succession":{"enabled":true,"last_takeover_at":null},"updated_at":"2026-11-22T01:45:05.330468+00:00"}`)
	r := runCLI(t, nil, "check", "--root", root)
	if r.code != 0 || !strings.Contains(r.stderr, "field steps[0].planner_source is outside the contract") {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
}

func TestCheckRejectsBadThresholds(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	// As in the Python tool, thresholds given as flags are checked as
	// given, against the default --check-interval 300 too.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--warning-after", "100", "--stale-after", "50"}, "warning_after_seconds must be >= check_interval_seconds"},
		{[]string{"--warning-after", "60", "--stale-after", "120"}, "warning_after_seconds must be >= check_interval_seconds"},
		{[]string{"--check-interval", "10", "--warning-after", "100", "--stale-after", "50"}, "stale_after_seconds must be >= warning_after_seconds"},
	} {
		r := runCLI(t, nil, append([]string{"check", "--root", root}, tc.args...)...)
		if r.code != exitFailure || r.stderr != "E_CHECK_HEARTBEAT_INVALID: "+tc.want+"\n" {
			t.Errorf("%q: got %+v", tc.args, r)
		}
	}
}

func TestReplayTailsOldestFirst(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	if r := runCLI(t, nil, "replay", "--root", root); r.stdout != "No events entries recorded.\n" {
		t.Fatalf("empty replay: %+v", r)
	}
	store, err := ledger.Open(root, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	for i := 0; i < 30; i++ {
		e := ledger.NewEvent(base.Add(time.Duration(i)*time.Second), "T", "R", fmt.Sprintf("S%d", i), ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("i", i))
		if err := store.AppendEvent(e); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	r := runCLI(t, nil, "replay", "--root", root, "--limit", "3")
	want := "2026-11-22T01:00:27+00:00 SYSTEM step=S27 severity=INFO\n2026-11-22T01:00:28+00:00 SYSTEM step=S28 severity=INFO\n2026-11-22T01:00:29+00:00 SYSTEM step=S29 severity=INFO\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("replay --limit 3:\n%s\nwant\n%s", r.stdout, want)
	}
	// --json is one array of the full events, as json.loads reads it.
	j := runCLI(t, nil, "replay", "--root", root, "--limit", "2", "--json")
	var events []json.RawMessage
	if err := json.Unmarshal([]byte(j.stdout), &events); err != nil || len(events) != 2 {
		t.Fatalf("--json: %v, %d events:\n%s", err, len(events), j.stdout)
	}
	for i, raw := range events {
		e, err := ledger.ParseEvent(raw)
		if err != nil || e.StepID != fmt.Sprintf("S%d", 28+i) {
			t.Errorf("--json entry %d: %v %+v", i, err, e)
		}
	}
	if r := runCLI(t, nil, "replay", "--root", root, "--limit", "0"); strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("--limit 0 prints %q, want one entry like the Python tool", r.stdout)
	}
}

func TestReplayOfAMissingLogFails(t *testing.T) {
	t.Parallel()
	noEvents := t.TempDir()
	if err := os.Mkdir(filepath.Join(noEvents, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "replay", "--root", noEvents)
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, "E_REPLAY_FAILED: missing file: ") {
		t.Fatalf("got %+v", r)
	}
	r = runCLI(t, nil, "replay", "--root", t.TempDir())
	if r.code != exitFailure || !strings.Contains(r.stderr, "is not a daokit ledger (no state/ folder); to make one: daokit init --root ") {
		t.Fatalf("got %+v", r)
	}
	r = runCLI(t, nil, "replay", "--root", filepath.Join(t.TempDir(), "nope"))
	if r.code != exitFailure || !strings.Contains(r.stderr, "nope does not exist") {
		t.Fatalf("got %+v", r)
	}
	r = runCLI(t, nil, "replay", "--root", t.TempDir(), "--source", "nope")
	if r.code != exitUsage {
		t.Fatalf("bad --source: %+v", r)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Ids on the command line are refused before a controller is asked or
// started, so no folder is ever made from them.
func TestIDFlagsAreValidated(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if r := runCLI(t, nil, "init", "--root", root); r.code != exitOK {
		t.Fatalf("init: %+v", r)
	}
	for _, args := range [][]string{
		{"run", "--root", root, "--task-id", "../../escape9b", "--goal", "x"},
		{"run", "--root", root, "--task-id", "T1", "--run-id", "../r", "--goal", "x"},
		{"send", "--root", root, "--task-id", "/abs", "--cancel"},
		{"send", "--root", root, "--run-id", ".hidden", "--retry"},
		{"send", "--root", root, "--task-id", "a b", "hello"},
	} {
		r := runCLI(t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "is not a valid id") {
			t.Errorf("%v: %+v, want a usage error about the id", args, r)
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 1 {
		t.Fatalf("folders next to the root: %v", entries)
	}
	if pid, _ := ledger.LockHolder(root); pid != 0 {
		t.Fatalf("a controller (pid %d) was started", pid)
	}
}

// TestReplayAnswersAsPython: an empty log is [] with --json, and a ledger
// without snapshots.jsonl has no snapshots rather than a missing file.
func TestReplayAnswersAsPython(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--json"}, "[]\n"},
		{[]string{"replay", "--source", "snapshots"}, "No snapshots entries recorded.\n"},
		{[]string{"replay", "--source", "snapshots", "--json"}, "[]\n"},
	} {
		if r := runCLI(t, nil, append(tc.args, "--root", root)...); r.code != 0 || r.stdout != tc.want || r.stderr != "" {
			t.Errorf("%q: code %d stdout %q stderr %q, want %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}
