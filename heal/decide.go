package heal

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Controller lease verdicts, the Python self-healing cycle's codes.
const (
	LeaseValid           = string(vocab.LeaseValid)
	LeaseMissing         = string(vocab.LeaseMissing)
	LeaseNoneActive      = string(vocab.LeaseNoneActive)
	LeaseMalformedExpiry = string(vocab.LeaseMalformedExpiry)
	LeaseExpiredCode     = string(vocab.LeaseExpired)
)

// Decision actions.
const (
	ActionTakeover = "TAKEOVER"
	ActionObserve  = "OBSERVE"
)

// CheckControllerLease judges the controller's lease for the pipeline's
// task and run: the lane is role_lifecycle.controller_lane (default
// "controller"); the step is the one controller_ownership names, else the
// current step, else any. Among ACTIVE candidates the newest counts.
func CheckControllerLease(p *ledger.PipelineState, reg *ledger.Leases, now time.Time) string {
	lane := p.RoleLifecycle.Get("controller_lane")
	if lane == "" {
		lane = ControllerLane
	}
	step := p.CurrentStep
	if owner := p.RoleLifecycle.Get("controller_ownership"); owner != "" {
		if l, s, ok := strings.Cut(owner, ":"); ok && l == lane && s != "unassigned" {
			step = s
		}
	}
	var candidates, active []ledger.Lease
	for _, l := range reg.Leases {
		if l.TaskID != p.TaskID || l.RunID != p.RunID || l.Lane != lane {
			continue
		}
		if step != "" && l.StepID != step {
			continue
		}
		candidates = append(candidates, l)
		if l.Status == ledger.LeaseActive {
			active = append(active, l)
		}
	}
	switch {
	case len(candidates) == 0:
		return LeaseMissing
	case len(active) == 0:
		return LeaseNoneActive
	}
	sort.Slice(active, func(i, j int) bool {
		a, b := active[i], active[j]
		return a.UpdatedAt+a.CreatedAt+a.LeaseToken < b.UpdatedAt+b.CreatedAt+b.LeaseToken
	})
	newest := active[len(active)-1]
	expiry, err := ledger.ParseTime(newest.Expiry)
	switch {
	case err != nil:
		return LeaseMalformedExpiry
	case !expiry.After(now):
		return LeaseExpiredCode
	}
	return LeaseValid
}

// Decision is what the self-healing loop decided for one check.
type Decision struct {
	Action     string // ActionTakeover or ActionObserve
	ReasonCode string
}

// Decide applies the precedence of the Python cycle: STALE takes over; an
// invalid controller lease takes over; WARNING only observes; anything
// else observes with HEARTBEAT_<STATUS>_NO_ACTION.
func Decide(heartbeatStatus, leaseVerdict string) Decision {
	status := strings.ToUpper(strings.TrimSpace(heartbeatStatus))
	if !slices.Contains(ledger.HeartbeatStatuses(), status) {
		status = "UNKNOWN"
	}
	switch {
	case status == ledger.HeartbeatStale:
		return Decision{ActionTakeover, string(vocab.ReasonHeartbeatStale)}
	case leaseVerdict != LeaseValid:
		return Decision{ActionTakeover, string(vocab.InvalidLease(vocab.Reason(leaseVerdict)))}
	case status == ledger.HeartbeatWarning:
		return Decision{ActionObserve, string(vocab.ReasonHeartbeatWarning)}
	default:
		return Decision{ActionObserve, string(vocab.NoAction(status))}
	}
}
