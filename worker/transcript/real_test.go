package transcript

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeReal decodes a stream captured from a real CLI (testdata/real,
// copied from the captures of Claude Code 2.1.332 and Codex 0.169.0
// against daokit's scripted model) and returns its events.
func decodeReal(t *testing.T, kind, name string) []Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "real", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := NewDecoder(kind)
	var events []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// (Lines this decoder does not read yet, such as 2.1.332's
		// system/permission_denied whose "message" is a string, are not
		// this test's concern.)
		events = append(events, d.Decode(Stdout, sc.Bytes()).Events...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

func ofType(events []Event, typ EventType) []Event {
	var out []Event
	for _, ev := range events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func resultUsage(t *testing.T, events []Event) Usage {
	t.Helper()
	res := ofType(events, EventResult)
	if len(res) != 1 || res[0].Usage == nil {
		t.Fatalf("results %+v, want one with usage", res)
	}
	return *res[0].Usage
}

// A failing "go test" run by Claude's Bash tool is a failed tool result
// with its exit code and the FAIL lines of its output; the result's
// input tokens include the cache reads and writes.
func TestClaudeFailingTestsAndCacheTokens(t *testing.T) {
	events := decodeReal(t, "claude", "claude-test-fails")
	results := ofType(events, EventToolResult)
	if len(results) != 1 {
		t.Fatalf("tool results %+v", results)
	}
	r := results[0]
	if r.Tool != "Bash" || !r.Failed || r.Denied || r.Code != "exit 1" || !strings.Contains(r.Output, "FAIL\texample.com/m") ||
		!strings.Contains(r.Output, "--- FAIL: TestBroken") {
		t.Fatalf("tool result %+v", r)
	}
	u := resultUsage(t, events)
	// usage.input_tokens 2346 + cache_read 8000 + cache_creation 200.
	want := Usage{InputTokens: 10546, CacheReadTokens: 8000, CacheCreationTokens: 200, OutputTokens: 72, CostUSD: 0.013424,
		DurationMS: u.DurationMS, Turns: 2}
	if u != want {
		t.Fatalf("usage %+v, want %+v", u, want)
	}
	pass := ofType(decodeReal(t, "claude", "claude-test-passes"), EventToolResult)
	if len(pass) != 1 || pass[0].Failed || !strings.Contains(pass[0].Output, "ok  \texample.com/m") {
		t.Fatalf("passing run %+v", pass)
	}
}

// Claude Code's refusals (no permission mode: Edit and a compound Bash)
// are denied tool results, not failures of the tools.
func TestClaudeDenialsAreDenied(t *testing.T) {
	results := ofType(decodeReal(t, "claude", "claude-denied-default"), EventToolResult)
	if len(results) != 2 {
		t.Fatalf("tool results %+v", results)
	}
	for _, r := range results {
		if !r.Failed || !r.Denied {
			t.Errorf("%s: %+v, want failed and denied", r.Tool, r)
		}
	}
	for _, r := range ofType(decodeReal(t, "claude", "claude-edit"), EventToolResult) {
		if r.Denied || r.Failed {
			t.Errorf("allowed edit %+v", r)
		}
	}
}

// After --resume, Claude Code 2.1.332's total_cost_usd is the session's
// (0.029144); what the second process adds is its
// model_usage_since_last_result (0.01572), and the two processes' figures
// add up to the session's.
func TestClaudeResumeReportsTheProcessIncrement(t *testing.T) {
	first := resultUsage(t, decodeReal(t, "claude", "claude-resume-1"))
	second := resultUsage(t, decodeReal(t, "claude", "claude-resume-2"))
	if first.Total != TotalNone || second.Total != TotalNone {
		t.Fatalf("totals %d %d, want increments", first.Total, second.Total)
	}
	if sum := first.CostUSD + second.CostUSD; sum < 0.029143 || sum > 0.029145 || second.CostUSD > 0.0158 {
		t.Fatalf("costs %g + %g, want 0.013424 + 0.01572 = the session's 0.029144", first.CostUSD, second.CostUSD)
	}
	if second.InputTokens != 3100+10100+100 || second.OutputTokens != 40 {
		t.Fatalf("second process usage %+v", second)
	}
}

// Codex: a failing test command carries its exit code and output; a
// file_change names each file; usage is the thread's running total.
func TestCodexResultsAndThreadTotals(t *testing.T) {
	results := ofType(decodeReal(t, "codex", "codex-test-fails"), EventToolResult)
	if len(results) != 1 || !results[0].Failed || results[0].Code != "exit 1" || !strings.Contains(results[0].Output, "FAIL\texample.com/m") {
		t.Fatalf("tool results %+v", results)
	}
	edit := decodeReal(t, "codex", "codex-edit")
	var paths []string
	for _, ev := range ofType(edit, EventTool) {
		if ev.Tool == "file_change" {
			paths = append(paths, ev.Text+"#"+ev.ID)
		}
	}
	var done []string
	for _, ev := range ofType(edit, EventToolResult) {
		if ev.Tool == "file_change" && !ev.Failed {
			done = append(done, ev.ID)
		}
	}
	if strings.Join(paths, ",") != "/tmp/cap/proj/hello.txt#item_2" || strings.Join(done, ",") != "item_2" {
		t.Fatalf("file changes %v, results %v", paths, done)
	}
	first := resultUsage(t, decodeReal(t, "codex", "codex-resume-1"))
	second := resultUsage(t, decodeReal(t, "codex", "codex-resume-2"))
	if first.Total != TotalThread || first.InputTokens != 2200 || second.InputTokens != 5900 || second.CacheReadTokens != 900 {
		t.Fatalf("thread totals %+v then %+v", first, second)
	}
}
