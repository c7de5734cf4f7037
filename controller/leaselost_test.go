package controller

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// takeOverOnDisk does what another writer's takeover (the Python tool's
// `takeover`) does to process_leases.json while the controller runs: the
// ACTIVE leases of the task's step become TAKEN_OVER and a successor
// holds a fresh one. It returns the tokens it took.
func takeOverOnDisk(t *testing.T, root, taskID string) []string {
	t.Helper()
	path := ledger.Layout{Root: root}.Leases()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ledger.ParseLeases(data)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var taken []string
	var successor ledger.Lease
	for i, l := range reg.Leases {
		if l.TaskID != taskID || l.Status != ledger.LeaseActive {
			continue
		}
		taken = append(taken, l.LeaseToken)
		reg.Leases[i].Status, reg.Leases[i].UpdatedAt = ledger.LeaseTakenOver, ledger.FormatTime(now)
		successor = l
	}
	if len(taken) == 0 {
		t.Fatalf("no ACTIVE lease of %s in %s", taskID, data)
	}
	successor.LeaseToken, successor.ThreadID, successor.PID = "lease_python_successor", "python-successor", os.Getpid()
	successor.Expiry = ledger.FormatTime(now.Add(time.Minute))
	reg.Leases = append(reg.Leases, successor)
	out, err := ledger.MarshalDocument(reg)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), ".leases-other-writer")
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return taken
}

// TestLeaseTakenByAnotherWriterStopsTheWorker: while a worker runs a
// step, another writer takes the step's leases over in the register.
// The controller does not renew them from under their new holder: it
// stops its worker, the step ends LEASE_LOST, once (not restarted), and
// the register keeps the takeover.
func TestLeaseTakenByAnotherWriterStopsTheWorker(t *testing.T) {
	t.Parallel()
	h := startHarness(t, t.TempDir(), shellConfig(tickScript))
	ack := h.forward("run until taken")
	h.typedFor(ack.TaskID, ledger.EventStepStarted)
	taken := takeOverOnDisk(t, h.root, ack.TaskID)
	end, failed, starts := ran(h, ack.TaskID)
	if starts != 1 || len(failed) != 1 || failed[0].Payload.String("reason_code") != ReasonLeaseLost {
		t.Fatalf("%d attempts, step ends %v; want one, failed with %s", starts, failed, ReasonLeaseLost)
	}
	if s := end.Payload.String("status"); s == ledger.StatusDone {
		t.Fatalf("run ended %s after its lease was lost", s)
	}
	h.waitFor("the recorded loss", func(e ledger.Event) bool {
		return e.TaskID == ack.TaskID && op(e) == OpLeaseRenewFailed && e.Payload.String("reason_code") == ReasonLeaseLost
	})
	h.stop()
	data, err := os.ReadFile(ledger.Layout{Root: h.root}.Leases())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ledger.ParseLeases(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range reg.Leases {
		for _, tok := range taken {
			if l.LeaseToken == tok && l.Status == ledger.LeaseActive {
				t.Errorf("the controller took lease %s back: %+v", tok, l)
			}
		}
	}
}
