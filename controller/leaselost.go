package controller

import (
	"slices"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// A lease lost to another writer. The store keeps the controller's own
// lease records when another writer changed them (the caller wins), so
// a takeover the Python tool wrote into process_leases.json while a
// controller's worker runs the step would be undone by the next renewal,
// and two holders would run one step. The store reports such records
// instead (TakeContestedLeases); the controller gives the lease up to
// its new holder (their record replaces its own in the register, and
// it stops renewing it) and stops the worker: the step ends LEASE_LOST,
// which is not restarted, since the step is the successor's now.

// leasesContested acts on the records another writer took over, as the
// store reported them after a write of the register.
func (c *Controller) leasesContested(lost []ledger.ContestedLease) {
	if len(lost) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for _, l := range lost {
		i := slices.IndexFunc(c.leases.Leases, func(x ledger.Lease) bool { return x.LeaseToken == l.Token })
		if i < 0 {
			continue
		}
		c.leases.Leases[i] = l.Theirs
		c.writeLeasesLocked()
		for _, r := range c.order {
			held := r.heldLocked(l.Token)
			if held == nil {
				continue
			}
			spec := held.Spec()
			if r.lease == held {
				r.lease = nil
			} else {
				r.ctlLease = nil
			}
			if r.proc != nil {
				r.post(observation{kind: obsLeaseLost, proc: r.proc, lease: leaseNews{lane: spec.Lane, step: spec.StepID,
					code: ReasonLeaseLost, status: l.Theirs.Status, old: l.Token, fresh: l.Theirs.LeaseToken,
					err: "taken over by " + l.Theirs.ThreadID, at: now}})
			}
		}
	}
}

// heldLocked returns the lease of r's running attempt with token, nil
// when it holds none. Called with c.mu held.
func (r *run) heldLocked(token string) *heal.Held {
	for _, h := range []*heal.Held{r.lease, r.ctlLease} {
		if h != nil && h.Token() == token {
			return h
		}
	}
	return nil
}

// leaseLost is the run's handling of a lease another writer took over:
// the loss is recorded, then the worker of that attempt is stopped, once.
// Run goroutine only.
func (c *Controller) leaseLost(r *run, proc *worker.Process, o observation) {
	c.leaseRenewFailed(r, o)
	if o.proc != proc || r.leaseLost == proc {
		return // about an earlier attempt, or already being stopped
	}
	r.leaseLost = proc
	c.log.Warn("another writer took the step's lease over; stopping its worker", "step", o.lease.step, "token", o.lease.old)
	proc.Stop(transcript.StopLeaseLost)
}
