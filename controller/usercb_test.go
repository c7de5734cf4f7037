package controller

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
)

// TestCallbackHearsAFailedAgent: a [[workflow.callbacks]] command hears
// a coder that fails as OnAgentStart then OnAgentFailed (one end for the
// one start), with its lines between, through the controller's real
// loop (and one with lines = false, the same without OnText); the run ends (BLOCKED: no restart left) as it would without the
// callback.
func TestCallbackHearsAFailedAgent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cfg := loopConfig("2", 3)
	cfg.Lanes[0].Command = []string{"sh", "-c", "cat >/dev/null; echo 'first and last words'; exit 3"}
	cfg.Restart.MaxRestarts = 0
	cfg.Workflow.Callbacks = []config.Callback{
		{Name: "record", Command: []string{"sh", "-c", "cat > cb.jsonl"}, Dir: ".", Queue: config.DefaultCallbackQueue, Lines: true},
		{Name: "quiet", Command: []string{"sh", "-c", "cat > quiet.jsonl"}, Dir: ".", Queue: config.DefaultCallbackQueue},
	}
	h := startHarness(t, root, cfg)
	fin := h.finished(h.forward("x").Route.TaskID)
	if st := fin.Payload.String("status"); st != ledger.StatusBlocked && st != ledger.StatusFailed {
		t.Fatalf("run ended %v", fin.Payload)
	}
	var got []string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		got = callbackLines(t, filepath.Join(root, "cb.jsonl"))
		if len(got) > 0 && strings.HasPrefix(got[len(got)-1], "OnAgentFailed") {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	// Lines (the worker's and the controller's about it) are many: the
	// order is what matters.
	got = slices.Compact(got)
	want := "OnIterationStart: OnAgentStart:I1-coder OnText:I1-coder OnAgentFailed:I1-coder"
	if strings.Join(got, " ") != want {
		t.Fatalf("the callback heard\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
	// lines = false: the same, without the lines.
	for time.Now().Before(deadline) {
		got = callbackLines(t, filepath.Join(root, "quiet.jsonl"))
		if len(got) > 0 && strings.HasPrefix(got[len(got)-1], "OnAgentFailed") {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	if want := "OnIterationStart: OnAgentStart:I1-coder OnAgentFailed:I1-coder"; strings.Join(got, " ") != want {
		t.Fatalf("the callback without lines heard\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
}

// callbackLines reads the whole lines of a callback's record as
// "callback:agent".
func callbackLines(t *testing.T, path string) []string {
	t.Helper()
	data, _ := os.ReadFile(path)
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var l struct {
			Callback, Agent, Error string
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return out // a line still being written
		}
		if l.Callback == "OnAgentFailed" && l.Error == "" {
			t.Errorf("OnAgentFailed without its error: %s", sc.Text())
		}
		out = append(out, l.Callback+":"+l.Agent)
	}
	return out
}
