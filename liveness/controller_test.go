package liveness

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

var c0 = time.Date(2026, 11, 22, 1, 45, 10, 0, time.UTC)

// standing is an ACTIVE standing lease of pid expiring at expiry.
func standing(pid int, expiry time.Time) ledger.Lease {
	at := ledger.FormatTime(c0)
	return ledger.Lease{Lane: "controller", TaskID: StandingTask, RunID: "generation-1", StepID: "controller",
		ThreadID: "controller-1", PID: pid, LeaseToken: "lease_" + ledger.FormatTime(expiry), Status: ledger.LeaseActive,
		Expiry: ledger.FormatTime(expiry), LastHeartbeatAt: at, CreatedAt: at, UpdatedAt: at}
}

func TestJudgeController(t *testing.T) {
	t.Parallel()
	worker := standing(7, c0.Add(time.Hour))
	worker.TaskID = "DKT-1" // a run's controller-lane lease is no sign of the controller's life
	reg := ledger.Leases{Leases: []ledger.Lease{standing(5, c0.Add(time.Minute)), worker}}
	for _, tc := range []struct {
		name          string
		pid           int
		running       bool
		at            time.Time
		live, hung    bool
		leasePID      int
		runningReport bool
	}{
		{"renewing", 5, true, c0, true, false, 5, true},
		{"lapsed but running: hung", 5, true, c0.Add(2 * time.Minute), true, true, 0, true},
		{"dead holder", 5, false, c0, false, false, 5, false},
		{"no holder", 0, true, c0, false, false, 5, false},
		{"holder without a standing lease (starting)", 9, true, c0.Add(2 * time.Minute), true, false, 0, true},
	} {
		c := JudgeController(tc.pid, tc.running, &reg, tc.at)
		if c.Live() != tc.live || c.Hung() != tc.hung || c.LeasePID != tc.leasePID || c.Running != tc.runningReport {
			t.Errorf("%s: %+v live %v hung %v", tc.name, c, c.Live(), c.Hung())
		}
	}
}

func TestProcessAlive(t *testing.T) {
	t.Parallel()
	if !ProcessAlive(os.Getpid()) || ProcessAlive(0) || ProcessAlive(-1) {
		t.Fatalf("ProcessAlive: self %v, 0 %v, -1 %v", ProcessAlive(os.Getpid()), ProcessAlive(0), ProcessAlive(-1))
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	if ProcessAlive(dead.Process.Pid) {
		t.Errorf("the reaped pid %d is alive", dead.Process.Pid)
	}
}
