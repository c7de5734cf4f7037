package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestInteropReadsALongPythonEvent: an event line of 9 MiB (longer than
// any daokit writes; the Python tool's LLM path logs whole tool-call
// transcripts) appended to a Python ledger is read by replay and check
// like any other, not skipped.
func TestInteropReadsALongPythonEvent(t *testing.T) {
	t.Parallel()
	root := pythonRoot(t, "done")
	e := ledger.NewEvent(time.Date(2026, 11, 22, 1, 45, 0, 0, time.UTC), "DKT-100", "RUN-1", "S1", ledger.EventSystem, ledger.SeverityInfo,
		ledger.ObjectOf("node", "dispatch", "tool_call_log", strings.Repeat("tool output 工具 ", (9<<20)/16)))
	e.EventID = "evt_long_python_event"
	line, err := ledger.MarshalLine(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(line) < 9<<20 {
		t.Fatalf("line of %d bytes", len(line))
	}
	f, err := os.OpenFile(filepath.Join(root, "state", "events.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(line); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()

	r := runCLI(t, nil, "replay", "--root", root, "--limit", "2", "--json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("replay: code %d stderr %q", r.code, r.stderr)
	}
	var events []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &events); err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[1]["event_id"] != "evt_long_python_event" {
		t.Errorf("replay printed %d events, the last %v", len(events), events[len(events)-1]["event_id"])
	}
	// check notes the Python pipeline's fields outside the contract, as
	// always, and nothing about the event log.
	if c := runCLI(t, nil, "check", "--root", root, "--json"); c.code != 0 || strings.Contains(c.stderr, "events.jsonl") {
		t.Errorf("check: code %d stderr %q", c.code, c.stderr)
	}
}
