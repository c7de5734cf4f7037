package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestPythonResumesFromDaokitsWrites is issue 29's "same truth" with the
// real binaries: a Python `run` interrupted (its runtime then resumes
// from state/checkpoints.jsonl, not from pipeline_state.json), a daokit
// `takeover`, the Python `run` that finishes the task, and a daokit
// controller run. After each daokit write the newest checkpoint the
// Python reader accepts is daokit's, hash verified, and holds the
// pipeline on disk; the Python run after the takeover keeps daokit's
// takeover record (succession.last_takeover_at, its event, the
// succession_takeover snapshot), and both tools' `status --json` agree.
// Without DAOKIT_PY_SRC the Python steps are the recorded ledger and the
// checks are the Go rendering of the Python reader's.
func TestPythonResumesFromDaokitsWrites(t *testing.T) {
	t.Parallel()
	py := os.Getenv(pythonSrcEnv)
	var root string
	if py != "" {
		root = newRoot(t, simConfig("300ms"))
		runPythonCode(t, py, 130, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "Interrupted goal", "--simulate-interruption")
	} else {
		t.Logf("%s not set: the recorded Python ledger, and the Python reader's checks in Go", pythonSrcEnv)
		root = copyTree(t, filepath.Join("..", "cmd", "daokit", "testdata", "python", "interrupted"))
		if err := os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(simConfig("300ms")), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	r := run(t, "takeover", "--root", root, "--successor-thread-id", "succ", "--successor-pid", "4242")
	if r.code != 0 {
		t.Fatalf("daokit takeover: %+v", r)
	}
	var took struct {
		TakeoverAt string `json:"takeover_at"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &took); err != nil || took.TakeoverAt == "" {
		t.Fatalf("takeover printed %q: %v", r.stdout, err)
	}
	resumesFromPipeline(t, py, root, ledger.NodeSuccessionTakeover)

	if py == "" {
		return
	}
	runPython(t, py, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "Interrupted goal")
	var p struct {
		Status     string `json:"status"`
		Succession struct {
			LastTakeoverAt *string `json:"last_takeover_at"`
		} `json:"succession"`
	}
	if err := json.Unmarshal(readState(t, root, ledger.PipelineFile), &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != ledger.StatusDone || p.Succession.LastTakeoverAt == nil || *p.Succession.LastTakeoverAt != took.TakeoverAt {
		t.Errorf("after the Python run: status %s, last_takeover_at %v, want daokit's %s", p.Status, p.Succession.LastTakeoverAt, took.TakeoverAt)
	}
	if _, ok := findEvent(t, root, func(e ledger.Event) bool {
		return e.EventType == ledger.EventLeaseTakeover && e.Payload.String("takeover_at") == took.TakeoverAt
	}); !ok {
		t.Error("daokit's LEASE_TAKEOVER event is gone")
	}
	if !bytes.Contains(readState(t, root, ledger.SnapshotsFile), []byte(`"node":"`+ledger.NodeSuccessionTakeover+`"`)) {
		t.Error("no succession_takeover snapshot in the history the Python replay shows")
	}
	statusesAgree(t, py, root)

	ctl := startController(t, root)
	taskID := ackTask(t, run(t, "send", "--root", root, "work after the Python run"))
	waitEvent(t, root, "RUN_FINISHED", 60*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	ctl.stop()
	if !strings.Contains(string(readState(t, root, ledger.PipelineFile)), taskID) {
		t.Fatalf("the controller's run did not write its pipeline:\n%s", readState(t, root, ledger.PipelineFile))
	}
	resumesFromPipeline(t, py, root, ledger.NodeDaokitController)
	statusesAgree(t, py, root)

	// The Python tool's next run starts from daokit's state, and keeps
	// daokit's records.
	runPython(t, py, "run", "--root", root, "--task-id", "DKT-301", "--run-id", "RUN-B", "--goal", "After daokit")
	for _, want := range []string{took.TakeoverAt, taskID} {
		if !bytes.Contains(readState(t, root, ledger.EventsFile), []byte(want)) {
			t.Errorf("events lost %s", want)
		}
	}
	statusesAgree(t, py, root)
}

// resumesFromPipeline checks that the newest valid checkpoint is the
// last line, written by daokit with node, and holds pipeline_state.json;
// with the Python checkout, by the Python runtime's own reader.
func resumesFromPipeline(t *testing.T, py, root, node string) {
	t.Helper()
	data := bytes.TrimSpace(readState(t, root, ledger.CheckpointsFile))
	last := data[bytes.LastIndexByte(data, '\n')+1:]
	var c struct {
		CheckpointID string          `json:"checkpoint_id"`
		Node         string          `json:"node"`
		State        json.RawMessage `json:"state"`
		StateHash    string          `json:"state_hash"`
	}
	if err := json.Unmarshal(last, &c); err != nil {
		t.Fatal(err)
	}
	var pipeline bytes.Buffer
	if err := json.Compact(&pipeline, readState(t, root, ledger.PipelineFile)); err != nil {
		t.Fatal(err)
	}
	if c.Node != node || !bytes.Equal(c.State, pipeline.Bytes()) {
		t.Fatalf("last checkpoint: node %q, state\n%s\npipeline\n%s", c.Node, c.State, pipeline.Bytes())
	}
	canon, err := ledger.MarshalCanonical(c.State)
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256Hex(canon); got != c.StateHash {
		t.Fatalf("state_hash %s, recomputed %s", c.StateHash, got)
	}
	if py == "" {
		return
	}
	script := `import json, sys
from pathlib import Path
from state.store import StateStore
state = StateStore(Path(sys.argv[1])).load_latest_valid_checkpoint()
rl = state["role_lifecycle"]
meta = {k: rl.pop(k) for k in list(rl) if k.startswith("checkpoint_resume_")}
print(json.dumps({"meta": meta, "state": state}))`
	cmd := pythonCmd(py)
	cmd.Args = []string{"python3", "-c", script, filepath.Join(root, ledger.StateDir)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Python load_latest_valid_checkpoint: %v\n%s", err, out)
	}
	var got struct {
		Meta  map[string]string `json:"meta"`
		State map[string]any    `json:"state"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var want map[string]any
	if err := json.Unmarshal(pipeline.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	// The Python reader annotates the state it resumes; what daokit wrote
	// had no such keys (or its own, from an earlier resume), so compare
	// without them.
	if rl, ok := want["role_lifecycle"].(map[string]any); ok {
		for k := range rl {
			if strings.HasPrefix(k, "checkpoint_resume_") {
				delete(rl, k)
			}
		}
	}
	if got.Meta["checkpoint_resume_id"] != c.CheckpointID || got.Meta["checkpoint_resume_status"] != "clean" {
		t.Errorf("the Python reader resumed from %v, want daokit's %s, clean", got.Meta, c.CheckpointID)
	}
	if !reflect.DeepEqual(got.State, want) {
		t.Errorf("the Python reader resumes from\n%v\nnot the pipeline\n%v", got.State, want)
	}
}

// statusesAgree compares `status --json` of both tools: every member the
// Python tool prints is daokit's too (daokit adds "workflow" once its
// controller has run tasks).
func statusesAgree(t *testing.T, py, root string) {
	t.Helper()
	cmd := pythonCmd(py, "status", "--root", root, "--json")
	pyOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("python status: %v\n%s", err, pyOut)
	}
	r := run(t, "status", "--root", root, "--json")
	if r.code != 0 {
		t.Fatalf("daokit status: %+v", r)
	}
	var a, b map[string]any
	if err := json.Unmarshal(pyOut, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(r.stdout), &b); err != nil {
		t.Fatal(err)
	}
	for k, v := range a {
		if !reflect.DeepEqual(v, b[k]) {
			t.Errorf("status --json differs in %s:\npython %s\ndaokit %s", k, pyOut, r.stdout)
		}
	}
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
