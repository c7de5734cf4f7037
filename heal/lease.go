package heal

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// ControllerLane is the lane of the controller's own lease; "default" and
// "controller" (any case) both mean it, as in the Python registry.
const ControllerLane = "controller"

// NormalizeLane trims a lane name and folds "default" into "controller".
func NormalizeLane(lane string) string {
	l := strings.TrimSpace(lane)
	if strings.EqualFold(l, "default") || strings.EqualFold(l, ControllerLane) {
		return ControllerLane
	}
	return l
}

// Holder is the process that owns a lease.
type Holder struct {
	ThreadID string
	PID      int
}

// LeaseSpec describes a lease to register.
type LeaseSpec struct {
	Lane, TaskID, RunID, StepID string
	Holder                      Holder
	TTL                         time.Duration
}

// Lease error codes, stable for translation.
const (
	LeaseNotFound  = "lease_not_found"
	LeaseNotActive = "lease_not_active"
	LeaseIsExpired = "lease_expired"
	LeaseBadSpec   = "lease_bad_spec"
)

// LeaseError says why a lease operation was refused.
type LeaseError struct {
	Code   string
	Token  string
	Status string // the lease's status, for LeaseNotActive
	Field  string // the bad field, for LeaseBadSpec
}

func (e *LeaseError) Error() string {
	switch e.Code {
	case LeaseNotActive:
		return fmt.Sprintf("lease %s is not ACTIVE (%s)", e.Token, e.Status)
	case LeaseIsExpired:
		return fmt.Sprintf("lease %s is expired", e.Token)
	case LeaseBadSpec:
		return fmt.Sprintf("lease %s is invalid", e.Field)
	default:
		return fmt.Sprintf("lease %s is not in the register", e.Token)
	}
}

func ttlSeconds(d time.Duration) time.Duration {
	return d.Truncate(time.Second)
}

// Register appends a new ACTIVE lease and returns it. Leases of finished
// holders stay in the register as history; they are never deleted.
func Register(reg *ledger.Leases, spec LeaseSpec, now time.Time) (ledger.Lease, error) {
	lane := NormalizeLane(spec.Lane)
	for _, f := range []struct{ name, v string }{
		{"lane", lane}, {"task_id", spec.TaskID}, {"run_id", spec.RunID},
		{"step_id", spec.StepID}, {"thread_id", spec.Holder.ThreadID},
	} {
		if strings.TrimSpace(f.v) == "" {
			return ledger.Lease{}, &LeaseError{Code: LeaseBadSpec, Field: f.name}
		}
	}
	if spec.Holder.PID < 1 {
		return ledger.Lease{}, &LeaseError{Code: LeaseBadSpec, Field: "pid"}
	}
	if ttlSeconds(spec.TTL) < time.Second {
		return ledger.Lease{}, &LeaseError{Code: LeaseBadSpec, Field: "ttl"}
	}
	at := ledger.FormatTime(now)
	l := ledger.Lease{
		Lane: lane, StepID: spec.StepID, TaskID: spec.TaskID, RunID: spec.RunID,
		ThreadID: spec.Holder.ThreadID, PID: spec.Holder.PID, LeaseToken: ledger.NewLeaseToken(),
		Expiry: ledger.FormatTime(now.Add(ttlSeconds(spec.TTL))), Status: ledger.LeaseActive,
		LastHeartbeatAt: at, CreatedAt: at, UpdatedAt: at,
	}
	reg.Leases = append(reg.Leases, l)
	return l, nil
}

func find(reg *ledger.Leases, token string) (*ledger.Lease, error) {
	for i := range reg.Leases {
		if reg.Leases[i].LeaseToken == token {
			return &reg.Leases[i], nil
		}
	}
	return nil, &LeaseError{Code: LeaseNotFound, Token: token}
}

// Release ends a lease normally. Releasing an EXPIRED lease is allowed (the
// holder finished late but cleanly); a lease already RELEASED or
// TAKEN_OVER is refused, because its holder no longer owns it.
func Release(reg *ledger.Leases, token string, now time.Time) error {
	l, err := find(reg, token)
	if err != nil {
		return err
	}
	if l.Status != ledger.LeaseActive && l.Status != ledger.LeaseExpired {
		return &LeaseError{Code: LeaseNotActive, Token: token, Status: l.Status}
	}
	l.Status, l.UpdatedAt = ledger.LeaseReleased, ledger.FormatTime(now)
	return nil
}

// ExpireOverdue marks every ACTIVE lease whose expiry has passed as
// EXPIRED and returns the tokens it changed.
func ExpireOverdue(reg *ledger.Leases, now time.Time) []string {
	var changed []string
	for i := range reg.Leases {
		l := &reg.Leases[i]
		if l.Status == ledger.LeaseActive && l.Expired(now) {
			l.Status, l.UpdatedAt = ledger.LeaseExpired, ledger.FormatTime(now)
			changed = append(changed, l.LeaseToken)
		}
	}
	return changed
}

// TakeoverResult lists what a takeover did, step ids in register order.
type TakeoverResult struct {
	// Adopted are the successor's new ACTIVE leases.
	Adopted []ledger.Lease
	// Superseded are the tokens now TAKEN_OVER.
	Superseded []string
	// FailedSteps had only expired leases and cannot be adopted.
	FailedSteps []string
}

// AdoptedSteps returns the step ids of the adopted leases, unique, in order.
func (r TakeoverResult) AdoptedSteps() []string {
	var ids []string
	for _, l := range r.Adopted {
		if !slices.Contains(ids, l.StepID) {
			ids = append(ids, l.StepID)
		}
	}
	return ids
}

// TakeOver moves every ACTIVE lease of a task/run to successor: the old
// record becomes TAKEN_OVER (its token stops working) and a new ACTIVE
// record with a fresh token is issued for the same lane and step. An
// ACTIVE lease that had already expired becomes EXPIRED and its step is
// reported failed. A ttl of zero keeps each lease's remaining time.
func TakeOver(reg *ledger.Leases, taskID, runID string, successor Holder, ttl time.Duration, now time.Time) (TakeoverResult, error) {
	var res TakeoverResult
	if strings.TrimSpace(successor.ThreadID) == "" {
		return res, &LeaseError{Code: LeaseBadSpec, Field: "successor_thread_id"}
	}
	if successor.PID < 1 {
		return res, &LeaseError{Code: LeaseBadSpec, Field: "successor_pid"}
	}
	at := ledger.FormatTime(now)
	n := len(reg.Leases)
	for i := 0; i < n; i++ {
		old := &reg.Leases[i]
		if old.TaskID != taskID || old.RunID != runID || old.Status != ledger.LeaseActive {
			continue
		}
		if old.Expired(now) {
			old.Status, old.UpdatedAt = ledger.LeaseExpired, at
			if !slices.Contains(res.FailedSteps, old.StepID) {
				res.FailedSteps = append(res.FailedSteps, old.StepID)
			}
			continue
		}
		expiry := old.Expiry
		if ttlSeconds(ttl) >= time.Second {
			expiry = ledger.FormatTime(now.Add(ttlSeconds(ttl)))
		}
		old.Status, old.UpdatedAt = ledger.LeaseTakenOver, at
		res.Superseded = append(res.Superseded, old.LeaseToken)
		fresh := ledger.Lease{
			Lane: old.Lane, StepID: old.StepID, TaskID: old.TaskID, RunID: old.RunID,
			ThreadID: successor.ThreadID, PID: successor.PID, LeaseToken: ledger.NewLeaseToken(),
			Expiry: expiry, Status: ledger.LeaseActive, LastHeartbeatAt: at, CreatedAt: at, UpdatedAt: at,
		}
		reg.Leases = append(reg.Leases, fresh)
		res.Adopted = append(res.Adopted, fresh)
	}
	// A step that was adopted through another lease is not failed.
	kept := res.FailedSteps[:0]
	for _, s := range res.FailedSteps {
		if !slices.Contains(res.AdoptedSteps(), s) {
			kept = append(kept, s)
		}
	}
	res.FailedSteps = kept
	return res, nil
}

// SyncLifecycle mirrors a lease into role_lifecycle with the Python
// registry's keys, when the lease belongs to the pipeline's task and run.
// It reports whether anything changed.
func SyncLifecycle(p *ledger.PipelineState, l ledger.Lease) bool {
	if p.TaskID != l.TaskID || p.RunID != l.RunID {
		return false
	}
	before, _ := ledger.MarshalLine(p.RoleLifecycle)
	lc := p.RoleLifecycle
	owner := l.Lane + ":" + l.StepID
	if l.Status == ledger.LeaseActive {
		if l.Lane == ControllerLane || lc.Get("controller_lane") == "" {
			// Only the controller lane names the controller; a worker lane
			// registering must not overwrite it (a Python quirk).
			lc = lc.With("controller_lane", l.Lane)
		}
		lc = lc.With("controller_ownership", owner).
			With("lane:"+l.Lane, "active_step:"+l.StepID).
			With("step:"+l.StepID, string(vocab.StepOwnedByLane.With(l.Lane)))
		if p.CurrentStep == "" {
			p.CurrentStep = l.StepID
		}
	} else {
		// lease_released, lease_expired or lease_taken_over, as the
		// Python registry writes them.
		lc = lc.With("step:"+l.StepID, "lease_"+strings.ToLower(l.Status)+":"+l.Lane)
		if lc.Get("controller_ownership") == owner {
			lc = lc.With("controller_ownership", l.Lane+":unassigned")
		}
	}
	p.RoleLifecycle = lc
	after, _ := ledger.MarshalLine(lc)
	return string(before) != string(after)
}

// PruneFinished removes the oldest finished leases (RELEASED, EXPIRED,
// TAKEN_OVER) so that at most keep of them remain, and returns how many it
// removed. ACTIVE leases always stay. The register is rewritten on every
// renewal, so a root that runs for months must not let it grow without
// bound; the history stays in events.jsonl.
func PruneFinished(reg *ledger.Leases, keep int) int {
	finished := 0
	for _, l := range reg.Leases {
		if l.Status != ledger.LeaseActive {
			finished++
		}
	}
	drop := finished - max(keep, 0)
	if drop <= 0 {
		return 0
	}
	kept := reg.Leases[:0:0]
	removed := 0
	for _, l := range reg.Leases { // oldest first: records are appended
		if l.Status != ledger.LeaseActive && removed < drop {
			removed++
			continue
		}
		kept = append(kept, l)
	}
	reg.Leases = kept
	return removed
}
