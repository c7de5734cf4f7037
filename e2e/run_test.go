package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// TestRunKeepsThePythonRecoveryFlow walks the Python DAOKit's canonical
// flow with `daokit run`: a run to DONE, an interrupted run (controller
// killed, lease left ACTIVE, exit 130), and the same run again, which the
// next controller takes over and finishes.
func TestRunKeepsThePythonRecoveryFlow(t *testing.T) {
	t.Parallel()
	root := newRoot(t, simConfig("1s"))
	t.Cleanup(func() { stopRootController(t, root) })
	r := run(t, "run", "--root", root, "--task-id", "DKT-100", "--goal", "Implement the feature")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "task_id=DKT-100 run_id=DKT-100_") || !strings.Contains(r.stdout, " status=DONE current_step=S1") {
		t.Fatalf("run: %+v", r)
	}
	r = run(t, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "Interrupted goal", "--simulate-interruption")
	if r.code != 130 || !strings.Contains(r.stderr, "E_RUN_INTERRUPTED: simulated interruption, lease left ACTIVE for takeover") {
		t.Fatalf("interrupted run: %+v", r)
	}
	active := 0
	for _, l := range ledger.LoadSnapshot(root).Leases.Value.Leases {
		if l.TaskID == "DKT-300" && l.Status == ledger.LeaseActive {
			active++
		}
	}
	if active == 0 {
		t.Fatalf("no ACTIVE lease left for the interrupted run")
	}
	r = run(t, "run", "--root", root, "--task-id", "DKT-300", "--run-id", "RUN-A", "--goal", "Interrupted goal")
	if r.code != 0 || !strings.Contains(r.stdout, "task_id=DKT-300 run_id=RUN-A status=DONE") {
		t.Fatalf("run after the interruption: %+v\ncontroller log (warnings and errors):\n%s\nevents:\n%s", r, controllerProblems(root), eventSummary(t, root))
	}
	takeovers := 0
	for _, e := range events(t, root) {
		if e.EventType == ledger.EventLeaseTakeover && e.TaskID == "DKT-300" {
			takeovers++
		}
	}
	if takeovers == 0 {
		t.Errorf("the next controller did not record a LEASE_TAKEOVER for the interrupted run")
	}
	validLedger(t, root)
}

// stopRootController ends whatever controller holds root.
func stopRootController(t *testing.T, root string) {
	pid, err := ledger.LockHolder(root)
	if err != nil || pid == 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if h, _ := ledger.LockHolder(root); h == 0 {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// controllerProblems returns the warnings and errors of root's
// controller log, for a failure's message.
func controllerProblems(root string) string {
	data, _ := os.ReadFile(filepath.Join(root, "state", "controller.log"))
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// eventSummary lists root's events one line each, for a failure's
// message.
func eventSummary(t *testing.T, root string) string {
	var out []string
	for _, e := range events(t, root) {
		out = append(out, e.Timestamp+" "+e.EventType+" "+e.TaskID+" "+e.StepID+" "+op(e)+" "+e.Payload.String("status")+" "+e.Payload.String("why"))
	}
	return strings.Join(out, "\n")
}
