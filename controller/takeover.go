package controller

import (
	"strconv"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Operations recorded around a takeover.
const (
	OpHandoffApplied     = string(vocab.OpHandoffApplied)
	OpHandoffApplyFailed = string(vocab.OpHandoffApplyFailed)
)

// takeOver adopts the step of a worker that was stopped as stale (or
// whose lease was lost): its leases become TAKEN_OVER, the controller
// holds fresh ones until the replacement worker starts, the step's fencing
// generation rises (a late write from the old holder names an older
// generation and is refused), LEASE_TAKEOVER is recorded with the reason,
// and a handoff package is written and applied so that the next attempt
// resumes from it.
func (c *Controller) takeOver(r *run, step, reason string) {
	c.mu.Lock()
	now := c.now()
	p := &r.pipeline
	fence := Fence(p, step) + 1
	res, err := heal.TakeOver(&c.leases, p.TaskID, p.RunID,
		heal.Holder{ThreadID: "takeover-" + strconv.Itoa(c.generation), PID: c.pid}, c.leaseTTL(), now)
	if err != nil {
		c.mu.Unlock()
		c.log.Error("take over", "step", step, "err", err)
		return
	}
	r.lease, r.ctlLease, r.proc = nil, nil, nil
	for _, l := range res.Adopted {
		r.successors = append(r.successors, heal.Adopt(l, c.leaseTTL(), now))
	}
	takeoverAt := ledger.FormatTime(now)
	p.Succession.LastTakeoverAt = takeoverAt
	p.RoleLifecycle = p.RoleLifecycle.With(fenceKey(step), strconv.Itoa(fence)).
		With("step:"+step, string(vocab.StepTakenOver.With(reason)))
	for _, s := range res.FailedSteps {
		p.RoleLifecycle = p.RoleLifecycle.With("step:"+s, stepNonAdopted)
	}
	c.writeLeasesLocked()
	pkg, pkgErr := heal.CreateHandoff(p, now, heal.HandoffOptions{Keep: heal.KeepSet{
		LatestInstruction: r.in.Text, Route: routePtr(p.Route()),
	}})
	taskID, runID := p.TaskID, p.RunID
	c.mu.Unlock()
	// The package is written (and fsynced) outside c.mu: no
	// acknowledgement waits for a takeover's disk.
	if pkgErr == nil {
		pkgErr = c.store.WriteHandoff(pkg)
	}
	var plan heal.ResumePlan
	if pkgErr == nil {
		c.mu.Lock()
		plan, pkgErr = heal.ApplyHandoff(&r.pipeline, pkg, false, now)
		c.mu.Unlock()
	}
	c.flushDocs()

	takeover := c.events.typed(taskID, runID, "", ledger.EventLeaseTakeover, ledger.SeverityWarn,
		"takeover_at", takeoverAt, "adopted_step_ids", nonNil(res.AdoptedSteps()), "failed_step_ids", nonNil(res.FailedSteps),
		"reason_code", reason, "generation", fence, "superseded_tokens", nonNil(res.Superseded), "successor_pid", c.pid)
	takeover.DedupKey = "succession:" + taskID + ":" + runID + ":" + takeoverAt
	c.record(takeover)
	if pkgErr != nil {
		c.log.Error("handoff after takeover", "step", step, "err", pkgErr)
		c.record(c.events.system(taskID, runID, step, ledger.SeverityError, OpHandoffApplyFailed,
			"reason_code", string(vocab.ReasonHandoffApply), "error", pkgErr.Error(), "takeover_at", takeoverAt))
	} else {
		applied := c.events.system(taskID, runID, plan.ResumeStepID, ledger.SeverityInfo, OpHandoffApplied,
			"takeover_at", takeoverAt, "resume_step_id", plan.ResumeStepID, "next_action", plan.NextAction,
			"resumable_step_ids", plan.ResumableStepIDs, "package_path", ledger.Layout{Root: c.opts.Root}.Handoff())
		applied.DedupKey = "handoff-applied:" + taskID + ":" + runID + ":" + takeoverAt
		c.record(applied)
	}
	c.persist(r)
}

// releaseSuccessors ends the leases the controller held for r between a
// takeover and the replacement worker's start. Called with c.mu held.
func (c *Controller) releaseSuccessorsLocked(r *run) {
	now := c.now()
	for _, h := range r.successors {
		if err := h.Release(&c.leases, now); err != nil {
			c.log.Warn("release a lease held since a takeover", "token", h.Token(), "err", err)
		}
	}
	r.successors = nil
}

// fenceKey is the role_lifecycle key of a step's fencing generation.
func fenceKey(step string) string { return "fence:" + step }

// Fence returns the fencing generation of step (0 before any takeover).
// A worker or controller that acted under an older generation has been
// superseded: its writes are refused.
func Fence(p *ledger.PipelineState, step string) int {
	n, _ := strconv.Atoi(p.RoleLifecycle.Get(fenceKey(step)))
	return n
}

func routePtr(r ledger.Route) *ledger.Route { return &r }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
