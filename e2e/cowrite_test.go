package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestPythonRunBesideALiveControllerKeepsItsRecords: a Python `run`
// interrupted while a daokit controller holds the root (the Python tool
// takes no lock) leaves its pipeline and its ACTIVE lease; the
// controller's next run writes its lease register from memory and its
// own pipeline, and must erase neither: the Python lease record stays,
// the Python pipeline stays byte for byte (a run under way is not
// daokit's to replace), one LEDGER_WRITE_CONFLICT warning says why, and
// daokit's run still runs to its end.
func TestPythonRunBesideALiveControllerKeepsItsRecords(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("300ms"))
	ctl := startController(t, root)
	defer ctl.stop()
	state := filepath.Join(root, ledger.StateDir)
	if py := os.Getenv(pythonSrcEnv); py != "" {
		runPythonCode(t, py, 130, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "Interrupted goal", "--simulate-interruption")
	} else {
		t.Logf("%s not set: writing the Python tool's recorded files as it writes them", pythonSrcEnv)
		fixture := filepath.Join("..", "cmd", "daokit", "testdata", "python")
		if err := os.WriteFile(filepath.Join(state, ledger.PipelineFile), readFixture(t, fixture, "interrupted", ledger.PipelineFile), 0o644); err != nil {
			t.Fatal(err)
		}
		mine, err := ledger.ParseLeases(readState(t, root, ledger.LeasesFile))
		if err != nil {
			t.Fatal(err)
		}
		py, err := ledger.ParseLeases(readFixture(t, fixture, "interrupted", ledger.LeasesFile))
		if err != nil {
			t.Fatal(err)
		}
		mine.Leases = append(mine.Leases, py.Leases...)
		data, err := ledger.MarshalDocument(mine)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, ledger.LeasesFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pyPipeline := readState(t, root, ledger.PipelineFile)
	if pipelineStatus(t, pyPipeline) != ledger.StatusPlanning {
		t.Fatalf("the Python run left its pipeline %s", pipelineStatus(t, pyPipeline))
	}
	pyTokens := leaseTokens(t, readState(t, root, ledger.LeasesFile))
	if len(pyTokens) == 0 {
		t.Fatal("the Python run registered no lease")
	}

	r := run(t, "send", "--root", root, "work beside the Python run")
	if r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	taskID := ackTask(t, r)
	waitEvent(t, root, "RUN_FINISHED", 60*time.Second, func(e ledger.Event) bool {
		return e.TaskID == taskID && op(e) == "RUN_FINISHED"
	})
	leases := readState(t, root, ledger.LeasesFile)
	for _, tok := range pyTokens {
		if !bytes.Contains(leases, []byte(tok)) {
			t.Errorf("the Python lease %s was erased:\n%s", tok, leases)
		}
	}
	if !bytes.Contains(leases, []byte(`"task_id": "`+taskID+`"`)) {
		t.Errorf("daokit's own lease is missing:\n%s", leases)
	}
	if got := readState(t, root, ledger.PipelineFile); !bytes.Equal(got, pyPipeline) {
		t.Errorf("the Python run's pipeline was overwritten:\n%s", got)
	}
	conflicts := 0
	for _, e := range events(t, root) {
		if op(e) == ledger.OpWriteConflict && e.Payload.String("file") == ledger.PipelineFile {
			conflicts++
		}
	}
	if conflicts != 1 {
		t.Errorf("%d LEDGER_WRITE_CONFLICT warnings for the pipeline, want 1", conflicts)
	}
}

// runPythonCode runs the Python DAOKit's CLI and wants exit code code.
func runPythonCode(t *testing.T, src string, code int, args ...string) {
	t.Helper()
	cmd := pythonCmd(src, args...)
	out, err := cmd.CombinedOutput()
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("python daokit-cli %v: exit %d (%v), want %d\n%s", args, got, err, code, out)
	}
}
