package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// resumeRoot is a root as the Python tool's interrupted run leaves it:
// its pipeline, leases and both resume logs.
func resumeRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if _, err := Init(root, testNow); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{PipelineFile, LeasesFile, CheckpointsFile, SnapshotsFile} {
		writeFile(t, statePath(root, name), pythonState(t, "interrupted", name))
	}
	return root
}

// checkpointLine is one line of checkpoints.jsonl, kept raw where the
// Python reader checks bytes.
type checkpointLine struct {
	SchemaVersion string          `json:"schema_version"`
	Kind          string          `json:"kind"`
	CheckpointID  string          `json:"checkpoint_id"`
	Timestamp     string          `json:"timestamp"`
	Node          string          `json:"node"`
	FromStatus    *string         `json:"from_status"`
	ToStatus      *string         `json:"to_status"`
	State         json.RawMessage `json:"state"`
	StateHash     string          `json:"state_hash"`
}

// newestValidCheckpoint is the Python runtime's load_latest_valid_checkpoint:
// the newest line that parses, has the right schema and kind, ids, an
// object state of schema 1.0.0 and a state_hash that recomputes.
func newestValidCheckpoint(t testing.TB, root string) (checkpointLine, int) {
	t.Helper()
	lines := bytes.Split(readFile(t, statePath(root, CheckpointsFile)), []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		var c checkpointLine
		if len(bytes.TrimSpace(lines[i])) == 0 || json.Unmarshal(lines[i], &c) != nil {
			continue
		}
		var st struct {
			SchemaVersion string `json:"schema_version"`
		}
		if c.SchemaVersion != "1.0.0" || c.Kind != "checkpoint" || c.CheckpointID == "" || c.Timestamp == "" ||
			json.Unmarshal(c.State, &st) != nil || st.SchemaVersion != "1.0.0" {
			continue
		}
		canon, err := MarshalCanonical(c.State)
		if err != nil || hashHex(canon) != c.StateHash {
			continue
		}
		return c, i + 1
	}
	t.Fatalf("no valid checkpoint in %s", statePath(root, CheckpointsFile))
	return checkpointLine{}, 0
}

// compactFile is a state document as the Python tool embeds it in a line.
func compactFile(t testing.TB, root, name string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, readFile(t, statePath(root, name))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func lineCount(t testing.TB, root, name string) int {
	t.Helper()
	return bytes.Count(readFile(t, statePath(root, name)), []byte{'\n'})
}

// TestPythonCheckpointHashesRecompute: the recipe daokit hashes its
// checkpoint states with gives the hash of every line the Python tool
// wrote, so a line daokit writes passes the Python reader's check.
func TestPythonCheckpointHashesRecompute(t *testing.T) {
	for _, name := range []string{"interrupted", "done", "taken-over", "handed-off"} {
		data := pythonState(t, name, CheckpointsFile)
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
			var c checkpointLine
			if err := json.Unmarshal(line, &c); err != nil {
				t.Fatal(err)
			}
			canon, err := MarshalCanonical(c.State)
			if err != nil {
				t.Fatal(err)
			}
			if got := hashHex(canon); got != c.StateHash {
				t.Errorf("%s line %d: hash %s, Python wrote %s", name, i+1, got, c.StateHash)
			}
		}
	}
}

// TestPipelineWritesLeavePythonsResumePoint: on a root the Python tool
// resumes from checkpoints, each pipeline write (the controller's, and a
// takeover's Commit) appends the checkpoint and snapshot lines Python's
// save_state would, in its key order, with the document as written, a
// hash the Python reader accepts and the operation's node label; the
// newest valid checkpoint is then exactly pipeline_state.json.
func TestPipelineWritesLeavePythonsResumePoint(t *testing.T) {
	root := resumeRoot(t)
	ckpts, snaps := lineCount(t, root, CheckpointsFile), lineCount(t, root, SnapshotsFile)
	s := openStore(t, root)
	c := takeoverChanges(t, root)
	c.Node = NodeSuccessionTakeover
	if err := s.Commit(c); err != nil {
		t.Fatal(err)
	}
	p := *c.Pipeline
	p.Status = StatusExecute
	written, err := s.WritePipeline(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := lineCount(t, root, CheckpointsFile); got != ckpts+2 {
		t.Fatalf("%d checkpoint lines after two writes on %d", got, ckpts)
	}
	if got := lineCount(t, root, SnapshotsFile); got != snaps+2 {
		t.Fatalf("%d snapshot lines after two writes on %d", got, snaps)
	}
	newest, n := newestValidCheckpoint(t, root)
	if n != ckpts+2 {
		t.Fatalf("the newest valid checkpoint is line %d of %d", n, ckpts+2)
	}
	if !bytes.Equal(newest.State, compactFile(t, root, PipelineFile)) {
		t.Errorf("the checkpoint state is not the pipeline written:\n%s\n%s", newest.State, compactFile(t, root, PipelineFile))
	}
	if newest.Node != NodeDaokitController || *newest.FromStatus != StatusPlanning || *newest.ToStatus != StatusExecute ||
		!strings.HasPrefix(newest.CheckpointID, "ckpt_") || len(newest.CheckpointID) != 37 || newest.Timestamp != written.UpdatedAt {
		t.Errorf("checkpoint %+v", newest)
	}
	lines := bytes.Split(bytes.TrimSpace(readFile(t, statePath(root, CheckpointsFile))), []byte{'\n'})
	var keys []string
	o, err := decodeObject(lines[len(lines)-1])
	if err != nil {
		t.Fatal(err)
	}
	keys = o.Keys()
	if want := "schema_version kind checkpoint_id timestamp node from_status to_status state state_hash"; strings.Join(keys, " ") != want {
		t.Errorf("checkpoint keys %v, want %s", keys, want)
	}
	var takeover checkpointLine
	if err := json.Unmarshal(lines[len(lines)-2], &takeover); err != nil {
		t.Fatal(err)
	}
	if takeover.Node != NodeSuccessionTakeover || !bytes.Contains(takeover.State, []byte(`"last_takeover_at":"`+FormatTime(testNow)+`"`)) {
		t.Errorf("takeover checkpoint: node %s state %s", takeover.Node, takeover.State)
	}
	snapLines := bytes.Split(bytes.TrimSpace(readFile(t, statePath(root, SnapshotsFile))), []byte{'\n'})
	snap, err := decodeObject(snapLines[len(snapLines)-1])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(snap.Keys(), " ") != "timestamp node from_status to_status state" {
		t.Errorf("snapshot keys %v", snap.Keys())
	}
	if st, _ := snap.Get("state"); !bytes.Equal(st, newest.State) {
		t.Errorf("snapshot state differs from the checkpoint's")
	}
	if _, err := os.Stat(statePath(root, JournalFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
}

// TestDaokitOnlyRootGetsNoResumeLines: without checkpoints, or with an
// empty checkpoints.jsonl, the Python runtime reads pipeline_state.json;
// daokit writes no resume logs there and creates none.
func TestDaokitOnlyRootGetsNoResumeLines(t *testing.T) {
	root := initRoot(t)
	s := openStore(t, root)
	p, err := ParsePipelineState(readFile(t, statePath(root, PipelineFile)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WritePipeline(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(statePath(root, CheckpointsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("checkpoints.jsonl on a daokit-only root: %v", err)
	}
	writeFile(t, statePath(root, CheckpointsFile), nil)
	if err := s.Commit(Changes{Pipeline: &p}); err != nil {
		t.Fatal(err)
	}
	if data := readFile(t, statePath(root, CheckpointsFile)); len(data) != 0 {
		t.Errorf("an empty checkpoints.jsonl got %q", data)
	}
}

// TestFailedPipelineWriteTakesItsCheckpointBack: a pipeline write that
// fails after its checkpoint line was appended removes the line again,
// so that Python never resumes from a state that was not written.
func TestFailedPipelineWriteTakesItsCheckpointBack(t *testing.T) {
	for _, at := range []string{SnapshotsFile, PipelineFile} {
		t.Run(at, func(t *testing.T) {
			root := resumeRoot(t)
			before := map[string][]byte{}
			for _, name := range []string{PipelineFile, CheckpointsFile, SnapshotsFile} {
				before[name] = readFile(t, statePath(root, name))
			}
			s := openStore(t, root)
			p, err := ParsePipelineState(before[PipelineFile])
			if err != nil {
				t.Fatal(err)
			}
			injected := errors.New("injected")
			commitStep = func(name string) error {
				if name == at {
					return injected
				}
				return nil
			}
			defer func() { commitStep = func(string) error { return nil } }()
			if _, err := s.WritePipeline(p); !errors.Is(err, injected) {
				t.Fatalf("write: %v", err)
			}
			for name, want := range before {
				if got := readFile(t, statePath(root, name)); !bytes.Equal(got, want) {
					t.Errorf("%s changed by a failed write:\n%s", name, got)
				}
			}
			if _, err := os.Stat(statePath(root, JournalFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("journal left: %v", err)
			}
		})
	}
}

// TestKilledPipelineWriteNeverLeavesPythonBehind SIGKILLs a takeover's
// Commit, and the controller's WritePipeline, before and after the
// checkpoint line: Python then resumes from
// the old state while pipeline_state.json is still old, or from the new
// one; never from a state older than the document. The next daokit
// writer finishes the commit, after which the newest valid checkpoint is
// the pipeline on disk, written once.
func TestKilledPipelineWriteNeverLeavesPythonBehind(t *testing.T) {
	for _, write := range []string{"commit", "pipeline"} {
		for _, at := range []string{CheckpointsFile, SnapshotsFile, PipelineFile, stepCommitted} {
			t.Run(write+"/"+at, func(t *testing.T) { killedPipelineWrite(t, write, at) })
		}
	}
}

// killedPipelineWrite kills a takeover's Commit ("commit") or the
// controller's WritePipeline of the same pipeline ("pipeline") at the
// commitStep at, and checks what Python resumes from before and after
// the next Open.
func killedPipelineWrite(t *testing.T, write, at string) {
	root := resumeRoot(t)
	oldPipeline := compactFile(t, root, PipelineFile)
	ckpts, snaps := lineCount(t, root, CheckpointsFile), lineCount(t, root, SnapshotsFile)
	leaveJournal(t, root, at, "DAOKIT_COMMIT_WRITE="+write)
	newest, n := newestValidCheckpoint(t, root)
	onDisk := compactFile(t, root, PipelineFile)
	switch {
	case at == CheckpointsFile:
		if n != ckpts || !bytes.Equal(onDisk, oldPipeline) {
			t.Errorf("killed before its checkpoint: checkpoint line %d of %d, pipeline changed %v", n, ckpts, !bytes.Equal(onDisk, oldPipeline))
		}
	case n != ckpts+1 || !bytes.Contains(newest.State, []byte(`"last_takeover_at":"`+FormatTime(testNow)+`"`)):
		t.Errorf("killed at %s: Python resumes from line %d (of %d before), state %s", at, n, ckpts, newest.State)
	}
	s := openStore(t, root)
	if !s.Repair().FinishedCommit {
		t.Errorf("the journal was not finished: %+v", s.Repair())
	}
	newest, n = newestValidCheckpoint(t, root)
	if n != ckpts+1 || lineCount(t, root, CheckpointsFile) != ckpts+1 || lineCount(t, root, SnapshotsFile) != snaps+1 {
		t.Errorf("after recovery: newest valid checkpoint line %d, %d checkpoint and %d snapshot lines, want %d and %d",
			n, lineCount(t, root, CheckpointsFile), lineCount(t, root, SnapshotsFile), ckpts+1, snaps+1)
	}
	if !bytes.Equal(newest.State, compactFile(t, root, PipelineFile)) {
		t.Errorf("after recovery the newest checkpoint is not the pipeline:\n%s\n%s", newest.State, compactFile(t, root, PipelineFile))
	}
}

// TestATakeoverWithItsHandoffCheckpointsThePipeline: when a takeover's
// commit carries the handoff package too (it is written first), the
// checkpoint Python resumes from holds the pipeline, not the package.
func TestATakeoverWithItsHandoffCheckpointsThePipeline(t *testing.T) {
	root := resumeRoot(t)
	s := openStore(t, root)
	c := takeoverChanges(t, root)
	pkg := HandoffPackage{SchemaVersion: SchemaVersion, TaskID: "DKT-300", RunID: "RUN-A", CurrentStep: "S1",
		OpenAcceptanceItems: []AcceptanceItem{}, NextAction: NextActionResume, ResumableStepIDs: []string{"S1"},
		StepStatus: StepStatus{Pending: []string{"S1"}}, CreatedAt: FormatTime(testNow)}
	var err error
	if pkg.PackageHash, err = pkg.ComputeHash(); err != nil {
		t.Fatal(err)
	}
	c.Handoff, c.Node = &pkg, NodeSuccessionTakeover
	if err := s.Commit(c); err != nil {
		t.Fatal(err)
	}
	newest, _ := newestValidCheckpoint(t, root)
	if !bytes.Equal(newest.State, compactFile(t, root, PipelineFile)) {
		t.Fatalf("the checkpoint state is not the pipeline:\n%s", newest.State)
	}
}
