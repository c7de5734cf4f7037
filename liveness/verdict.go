package liveness

import (
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
)

// runActiveStatuses are the pipeline statuses during which the Python
// DAOKit's check calls an execution under way (its RUN_ACTIVE_STATUSES):
// PLANNING and DONE are not among them.
var runActiveStatuses = map[string]bool{
	"ANALYSIS": true, "FREEZE": true, "EXECUTE": true, "ACCEPT": true, "DRAINING": true,
	"BLOCKED": true, "RUNNING": true, "WARNING": true, "STALE": true,
}

// RunActive reports whether the Python tool counts a pipeline status as
// an execution under way.
func RunActive(status string) bool { return runActiveStatuses[strings.ToUpper(status)] }

// LedgerSignals is the one rule by which daokit reads liveness from a
// ledger; `daokit check`, `status` and the window's heartbeat pane all
// judge with it, so that they never disagree.
//
// While the pipeline is in an active status the Python tool's rule holds
// exactly: the explicit signal is heartbeat_status.last_heartbeat_at and
// the implicit one the newest output, and leases are no sign of life. A
// recent lease beside a STALE heartbeat therefore stays STALE, and a run
// killed before any beat (no signal at all) is STALE at once, as the
// Python tool says.
//
// Outside an active status daokit adds one case the Python tool leaves
// idle: a run interrupted before its first step (PLANNING) whose lease
// for the pipeline's task and run is still ACTIVE in the register. The
// lease's last beat is its sign of life, and expiry does not end the
// execution (nobody released the lease: recovery must notice), so the
// run goes ACTIVE, WARNING, then STALE after stale_after of silence.
// A DONE or FAILED pipeline is never under way.
func LedgerSignals(p *ledger.PipelineState, hb *ledger.HeartbeatStatus, reg *ledger.Leases, output time.Time) Signals {
	var explicit time.Time
	if t, err := ledger.ParseTime(hb.LastHeartbeatAt); err == nil {
		explicit = t
	}
	if RunActive(p.Status) {
		return Signals{Active: true, Explicit: explicit, Implicit: output}
	}
	if p.Status == ledger.StatusDone || p.Status == ledger.StatusFailed || p.TaskID == "" {
		return Signals{}
	}
	held := false
	for i := range reg.Leases {
		l := &reg.Leases[i]
		if l.Status != ledger.LeaseActive || l.TaskID != p.TaskID || l.RunID != p.RunID {
			continue
		}
		held = true
		if t, err := ledger.ParseTime(l.LastHeartbeatAt); err == nil && t.After(explicit) {
			explicit = t
		}
	}
	if !held {
		return Signals{}
	}
	return Signals{Active: true, Explicit: explicit, Implicit: output}
}

// JudgeLedger evaluates a ledger's liveness at now by LedgerSignals.
func JudgeLedger(now time.Time, t Thresholds, p *ledger.PipelineState, hb *ledger.HeartbeatStatus, reg *ledger.Leases, output time.Time) Health {
	return Evaluate(now, t, LedgerSignals(p, hb, reg, output))
}
