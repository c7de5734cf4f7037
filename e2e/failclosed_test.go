package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// TestTornPipelineIsLeftAsItWas: a controller that cannot read
// pipeline_state.json refuses to start, says which file and what to do,
// and leaves the file (and the log) byte for byte as they were.
func TestTornPipelineIsLeftAsItWas(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("1s"))
	pipeline := filepath.Join(root, "state", ledger.PipelineFile)
	torn := []byte(`{"schema_version": "1.0.0", "task_id": "DK-12`)
	if err := os.WriteFile(pipeline, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	eventsBefore, _ := os.ReadFile(filepath.Join(root, "state", ledger.EventsFile))
	r := run(t, "controller", "--root", root)
	if r.code == 0 || !strings.Contains(r.stderr, "state unreadable") || !strings.Contains(r.stderr, ledger.PipelineFile) ||
		!strings.Contains(r.stderr, "Fix or move the file") {
		t.Errorf("controller: code %d stderr %q, want a refusal naming the file", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(pipeline); !bytes.Equal(got, torn) {
		t.Errorf("the torn pipeline became %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "state", ledger.EventsFile)); !bytes.Equal(got, eventsBefore) {
		t.Errorf("the refused start wrote %d bytes of events", len(got)-len(eventsBefore))
	}
	s := run(t, "send", "--root", root, "do something")
	if s.code == 0 || !strings.Contains(s.stderr, "state unreadable") {
		t.Errorf("send: code %d stderr %q, want the controller's refusal", s.code, s.stderr)
	}
	if got, _ := os.ReadFile(pipeline); !bytes.Equal(got, torn) {
		t.Errorf("after send the torn pipeline became %q", got)
	}
}

// TestAbandonDropsAWaitingRun: a run that waits behind a busy lane is
// dropped with `send --abandon`: it ends FAILED with RUN_ABANDONED and
// its worker never starts; a run that is not waiting cannot be abandoned.
func TestAbandonDropsAWaitingRun(t *testing.T) {
	t.Parallel()
	root := newRoot(t, strings.ReplaceAll(hangingConfig, "%TIMEOUT%", "0s"))
	ctl := startController(t, root)
	busy := ackTask(t, run(t, "send", "--root", root, "a job that hangs"))
	startedPID(t, root, busy)
	waiting := ackTask(t, run(t, "send", "--root", root, "a job that waits"))
	if c := run(t, "send", "--root", root, "--abandon"); c.code != 0 {
		t.Fatalf("send --abandon: %+v", c)
	}
	end := finished(t, root, waiting)
	if end.Payload.String("status") != ledger.StatusFailed || end.Payload.String("reason_code") != "RUN_ABANDONED" {
		t.Fatalf("abandoned run ended %s/%s", end.Payload.String("status"), end.Payload.String("reason_code"))
	}
	for _, e := range events(t, root) {
		if e.TaskID == waiting && e.EventType == ledger.EventStepStarted {
			t.Errorf("the abandoned run started a worker")
		}
	}
	if c := run(t, "send", "--root", root, "--abandon", "--task-id", busy); c.code == 0 || !strings.Contains(c.stderr, "still waits") {
		t.Errorf("abandon of a running run: %+v, want a refusal", c)
	}
	if c := run(t, "send", "--root", root, "--cancel", "--task-id", busy); c.code != 0 {
		t.Fatalf("send --cancel: %+v", c)
	}
	finished(t, root, busy)
	ctl.stop()
}
