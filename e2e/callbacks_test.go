package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// callbacksConfig adds to the demo loop one callback of each sort: one
// that records what it hears, the built-in debug log, one on the bus
// (events = "all"), one that never reads and one that exits at once.
const callbacksConfig = `
[[workflow.callbacks]]
name = "record"
command = ["sh", "-c", "cat > cb.jsonl"]

[[workflow.callbacks]]
name = "debug"
kind = "debug"

[[workflow.callbacks]]
name = "bus"
events = "all"
command = ["sh", "-c", "cat > bus.jsonl"]

[[workflow.callbacks]]
name = "deaf"
command = ["sh", "-c", "echo $$ > deaf.pid; exec sleep 600"]
queue = 4

[[workflow.callbacks]]
name = "quitter"
command = ["true"]
`

// cbLine is what the test reads of a callback line.
type cbLine struct {
	Callback  string `json:"callback"`
	At        string `json:"at"`
	Task      string `json:"task"`
	Run       string `json:"run"`
	Agent     string `json:"agent"`
	Iteration int    `json:"iteration"`
	Decision  *struct {
		Done bool `json:"done"`
	} `json:"decision"`
	Event *ledger.Event `json:"event"`
}

// readLines parses the whole lines of path (a line still being written
// is left for the next look).
func readLines(t *testing.T, path string) []cbLine {
	t.Helper()
	data, _ := os.ReadFile(path)
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		return nil
	}
	var out []cbLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l cbLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: not a JSON line: %q (%v)", path, sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// waitLines polls path until done says its lines are complete.
func waitLines(t *testing.T, path string, done func([]cbLine) bool) []cbLine {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if ls := readLines(t, path); done(ls) {
			return ls
		}
		time.Sleep(20 * time.Millisecond) // polling the file; the condition decides
	}
	t.Fatalf("%s incomplete after 20s: %d lines", path, len(readLines(t, path)))
	return nil
}

func finalIterationEnd(ls []cbLine) bool {
	for _, l := range ls {
		if l.Callback == "OnIterationEnd" && l.Decision != nil && l.Decision.Done {
			return true
		}
	}
	return false
}

// TestCallbacksHearTheDemoLoop: a callback anyone adds in daokit.toml
// hears every event kind of the demo's two iterations, in order, each
// agent's start ended once; the debug callback logs the same in the
// run's artifacts; a callback on the bus hears the ledger's events of
// the run; a callback that never reads loses lines (counted) and one
// that exits is reported once, while the run goes on to DONE.
func TestCallbacksHearTheDemoLoop(t *testing.T) {
	t.Parallel()
	root := newRoot(t, demoConfig(t)+callbacksConfig)
	if r := run(t, "check", "--root", root); r.code != 0 {
		t.Fatalf("check: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	ctl := startController(t, root)
	defer ctl.stop()
	r := run(t, "send", "--root", root, "--wait", "add a --json flag to status")
	if r.code != 0 || !strings.Contains(r.stdout, "is DONE") {
		t.Fatalf("send --wait: code %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var fin ledger.Event
	for _, e := range events(t, root) {
		if op(e) == "RUN_FINISHED" {
			fin = e
		}
	}

	got := waitLines(t, filepath.Join(root, "cb.jsonl"), finalIterationEnd)
	checkLoopLines(t, "cb.jsonl", got, fin)
	dir := filepath.Join(ledger.Layout{Root: root}.Artifacts(), "callbacks", fin.TaskID, fin.RunID)
	debug := waitLines(t, filepath.Join(dir, "debug.jsonl"), finalIterationEnd)
	checkLoopLines(t, "debug.jsonl", debug, fin)
	if len(debug) != len(got) {
		t.Errorf("debug log has %d lines, the command callback heard %d", len(debug), len(got))
	}

	bus := waitLines(t, filepath.Join(root, "bus.jsonl"), func(ls []cbLine) bool {
		for _, l := range ls {
			if l.Event != nil && l.Event.Payload.String("operation") == "RUN_FINISHED" && l.Event.RunID == fin.RunID {
				return true
			}
		}
		return false
	})
	ops := map[string]bool{}
	for _, l := range bus {
		if l.Callback != "OnEvent" || l.Event == nil {
			t.Fatalf("bus line %+v", l)
		}
		ops[l.Event.Payload.String("operation")] = true
	}
	for _, want := range []string{"CONTROLLER_STARTED", "INSTRUCTION_RECEIVED", "ITERATION_STARTED", "REVIEW_VERDICT", "ITERATION_FINISHED", "RUN_FINISHED"} {
		if !ops[want] {
			t.Errorf("the bus did not carry %s", want)
		}
	}

	// The quitter's exit is in the ledger once, and what it missed; the
	// deaf callback, ended by the controller, is not reported as exited,
	// and its process is gone.
	var exited, dropped []ledger.Event
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		exited, dropped = nil, nil
		for _, e := range events(t, root) {
			switch op(e) {
			case "CALLBACK_EXITED":
				exited = append(exited, e)
			case "CALLBACK_DROPPED":
				dropped = append(dropped, e)
			}
		}
		if len(dropped) > 0 && !alive(t, filepath.Join(root, "deaf.pid")) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the ledger; the condition decides
	}
	if len(exited) != 1 || exited[0].Payload.String("callback") != "quitter" || exited[0].RunID != fin.RunID {
		t.Errorf("CALLBACK_EXITED events %v, want one for quitter", exited)
	}
	if len(dropped) != 1 || dropped[0].Payload.String("callback") != "quitter" || payloadInt(dropped[0], "dropped") == 0 {
		t.Errorf("%d CALLBACK_DROPPED events, want one for quitter", len(dropped))
	}
	if alive(t, filepath.Join(root, "deaf.pid")) {
		t.Error("the callback that never reads outlived its run")
	}
}

// alive reports whether the process whose pid is in file still runs.
func alive(t *testing.T, file string) bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid file: %q", data)
	}
	return syscall.Kill(pid, 0) == nil
}

// checkLoopLines asserts the callback lines of a two-iteration loop:
// every kind, in order, every agent started once and ended once.
func checkLoopLines(t *testing.T, name string, ls []cbLine, fin ledger.Event) {
	t.Helper()
	kinds := map[string]int{}
	open := map[string]int{}
	var order []string
	last := ""
	for i, l := range ls {
		kinds[l.Callback]++
		if l.Task != fin.TaskID || l.Run != fin.RunID || l.At == "" {
			t.Fatalf("%s line %d names %s/%s at %q, want %s/%s", name, i, l.Task, l.Run, l.At, fin.TaskID, fin.RunID)
		}
		switch l.Callback {
		case "OnIterationStart", "OnIterationEnd":
			order = append(order, fmt.Sprintf("%s:%d", l.Callback, l.Iteration))
		case "OnAgentStart":
			if open[l.Agent] != 0 {
				t.Errorf("%s: %s started twice", name, l.Agent)
			}
			open[l.Agent]++
			order = append(order, "start:"+l.Agent)
		case "OnAgentEnd", "OnAgentFailed":
			if open[l.Agent] != 1 {
				t.Errorf("%s: %s ended without a start", name, l.Agent)
			}
			open[l.Agent]--
			order = append(order, "end:"+l.Agent)
		case "OnText", "OnToolUse", "OnToolResult":
			if open[l.Agent] != 1 {
				t.Errorf("%s: %s of %s outside its start and end", name, l.Callback, l.Agent)
			}
		}
		last = l.Callback
	}
	for agent, n := range open {
		if n != 0 {
			t.Errorf("%s: %s never ended", name, agent)
		}
	}
	for _, k := range []string{"OnIterationStart", "OnAgentStart", "OnToolUse", "OnText", "OnAgentEnd", "OnIterationEnd"} {
		if kinds[k] == 0 {
			t.Errorf("%s: no %s (kinds %v)", name, k, kinds)
		}
	}
	want := "OnIterationStart:1 start:I1-coder end:I1-coder start:I1-reviewer end:I1-reviewer start:I1-judge end:I1-judge OnIterationEnd:1 " +
		"OnIterationStart:2 start:I2-coder end:I2-coder start:I2-reviewer end:I2-reviewer start:I2-judge end:I2-judge OnIterationEnd:2"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("%s order:\n got %s\nwant %s", name, got, want)
	}
	if last != "OnIterationEnd" {
		t.Errorf("%s ends with %s", name, last)
	}
}
