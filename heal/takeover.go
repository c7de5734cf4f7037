package heal

import (
	"slices"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// TakeoverSpec says which run is taken over, by whom and why. It is the
// one description of a takeover, whether a person ran `daokit takeover`
// or a controller replaced a worker it found stale.
type TakeoverSpec struct {
	TaskID, RunID string
	// Step is the step whose holder was stopped (a controller's hung
	// worker), or "" when no step is named (a person's takeover).
	Step string
	// Reason is a stable reason code (vocab): MANUAL_TAKEOVER,
	// HEARTBEAT_STALE, ...
	Reason vocab.Reason
	// Successor holds the adopted leases.
	Successor Holder
	// TTL of the adopted leases; zero keeps each lease's remaining time.
	TTL time.Duration
	// Keep is the relay context the handoff carries; its Route defaults
	// to the pipeline's.
	Keep KeepSet
	// ReadBack are steps whose worker's end the successor reads back
	// from its logs (a controller's start-up succession): an expired
	// lease on one of them is not a failed step, since its worker may
	// have finished while nobody read it.
	ReadBack []string
	// NoHandoff: the successor resumes from the event log, which knows
	// more of the run than a handoff package (a controller's start-up
	// succession rebuilds every run from its instruction index); no
	// package is built and the pipeline's resume plan stays as it is.
	NoHandoff bool
}

// Takeover is what one takeover decided: the leases moved, the steps
// fenced and the handoff to resume from. PlanTakeover makes it; the
// caller writes the register, the pipeline, Handoff and Events through
// its own store, and ApplyHandoff once the package is on disk.
type Takeover struct {
	TakeoverResult
	Spec TakeoverSpec
	At   time.Time
	// Generation is the fencing generation the takeover raised: the
	// named step's, else the highest of the adopted steps' (0 when the
	// pipeline is not the run's or nothing was taken over).
	Generation int

	fences     map[string]int // each fenced step's new generation
	handoff    *ledger.HandoffPackage
	handoffDue bool
	handoffErr error
	plan       ResumePlan
	planned    bool
}

// PlanTakeover takes over spec's run in reg and, when p is that run's
// pipeline, records it there: the succession time, the adopted leases
// mirrored into role_lifecycle, each taken-over step's fencing generation
// raised (a late write of the old holder names an older one and is
// refused), the named step marked taken_over:<reason>, the steps whose
// leases had expired marked failed_non_adopted_lease, and a handoff
// package built for the next attempt to resume from. It only changes p
// and reg in memory. A takeover that found no lease and names no step
// changes nothing but the succession time, and hands nothing off.
func PlanTakeover(p *ledger.PipelineState, reg *ledger.Leases, spec TakeoverSpec, now time.Time) (Takeover, error) {
	res, err := TakeOver(reg, spec.TaskID, spec.RunID, spec.Successor, spec.TTL, now)
	if err != nil {
		return Takeover{}, err
	}
	if len(spec.ReadBack) > 0 {
		res.FailedSteps = slices.DeleteFunc(res.FailedSteps, func(s string) bool { return slices.Contains(spec.ReadBack, s) })
	}
	t := Takeover{TakeoverResult: res, Spec: spec, At: now}
	if p.TaskID != spec.TaskID || p.RunID != spec.RunID {
		return t, nil
	}
	p.Succession.LastTakeoverAt = ledger.FormatTime(now)
	for _, l := range res.Adopted {
		SyncLifecycle(p, l)
	}
	fenced := res.AdoptedSteps()
	if spec.Step != "" && !slices.Contains(fenced, spec.Step) {
		fenced = append(fenced, spec.Step)
	}
	t.fences = make(map[string]int, len(fenced))
	for _, s := range fenced {
		g := bumpFence(p, s)
		t.fences[s] = g
		if s == spec.Step || (spec.Step == "" && g > t.Generation) {
			t.Generation = g
		}
	}
	if spec.Step != "" {
		p.RoleLifecycle = p.RoleLifecycle.With("step:"+spec.Step, string(vocab.StepTakenOver.With(string(spec.Reason))))
	}
	for _, s := range res.FailedSteps {
		p.RoleLifecycle = p.RoleLifecycle.With("step:"+s, string(vocab.StepFailedNonAdopted))
	}
	if spec.NoHandoff || len(fenced) == 0 && len(res.FailedSteps) == 0 {
		return t, nil
	}
	keep := spec.Keep
	if keep.Route == nil {
		r := p.Route()
		keep.Route = &r
	}
	t.handoffDue = true
	pkg, err := CreateHandoff(p, now, HandoffOptions{Keep: keep})
	if err != nil {
		t.handoffErr = err
		return t, nil
	}
	t.handoff = &pkg
	return t, nil
}

// Handoff returns the package the caller writes before ApplyHandoff,
// and false when there is none to write.
func (t *Takeover) Handoff() (ledger.HandoffPackage, bool) {
	if t.handoff == nil || t.handoffErr != nil {
		return ledger.HandoffPackage{}, false
	}
	return *t.handoff, true
}

// ApplyHandoff applies the package to p once the caller wrote it
// (written is the error of that write, nil when it is on disk): the
// pipeline then says which step resumes. A package that could not be
// built, written or applied is recorded by Events as
// HANDOFF_APPLY_FAILED, and p keeps its resume plan as it was.
func (t *Takeover) ApplyHandoff(p *ledger.PipelineState, written error) {
	if !t.handoffDue || t.handoffErr != nil {
		return
	}
	if written != nil {
		t.handoffErr = written
		return
	}
	t.plan, t.handoffErr = ApplyHandoff(p, *t.handoff, false, t.At)
	t.planned = t.handoffErr == nil
}

// Changes is the takeover as one all-or-nothing ledger commit, for a
// writer that commits files together (`daokit takeover`): the register,
// the pipeline when it is the run's, the handoff package applied to it
// (written in the same commit, so a takeover cut short never leaves a
// package for a takeover that did not happen) and the events.
// packagePath is where the commit writes the package.
func (t *Takeover) Changes(p *ledger.PipelineState, reg *ledger.Leases, packagePath string) ledger.Changes {
	c := ledger.Changes{Leases: reg}
	if p.TaskID == t.Spec.TaskID && p.RunID == t.Spec.RunID {
		c.Pipeline = p
	}
	if pkg, ok := t.Handoff(); ok {
		c.Handoff = &pkg
	}
	t.ApplyHandoff(p, nil)
	c.Events = t.Events(packagePath)
	c.Node = ledger.NodeSuccessionTakeover
	return c
}

// HandoffErr returns why the handoff failed, nil if it did not.
func (t *Takeover) HandoffErr() error { return t.handoffErr }

// Severity is how a takeover is recorded: a person's is INFO, one the
// controller was driven to (a stale worker, a lost lease) is WARN.
func (t *Takeover) Severity() string {
	if t.Spec.Reason == vocab.ReasonManualTakeover {
		return ledger.SeverityInfo
	}
	return ledger.SeverityWarn
}

// Events returns the records of the takeover, in order: LEASE_TAKEOVER
// (what moved, why, the fencing generation, the successor), a SYSTEM
// LEASE_ADOPTED for each adopted step, a STEP_FAILED for each step
// whose lease had expired, then HANDOFF_APPLIED or HANDOFF_APPLY_FAILED
// when there was a handoff. packagePath is where the package was
// written. Each event's dedup key names the takeover's time, so that a
// replayed takeover is recorded once.
func (t *Takeover) Events(packagePath string) []ledger.Event {
	task, run, at := t.Spec.TaskID, t.Spec.RunID, ledger.FormatTime(t.At)
	head := ledger.NewEvent(t.At, task, run, "", ledger.EventLeaseTakeover, t.Severity(), ledger.ObjectOf(
		"takeover_at", at, "adopted_step_ids", nonNil(t.AdoptedSteps()), "failed_step_ids", nonNil(t.FailedSteps),
		"reason_code", string(t.Spec.Reason), "generation", t.Generation, "superseded_tokens", nonNil(t.Superseded),
		"successor_pid", t.Spec.Successor.PID, "successor_thread_id", t.Spec.Successor.ThreadID))
	head.DedupKey = "succession:" + task + ":" + run + ":" + at
	events := []ledger.Event{head}
	for _, s := range t.AdoptedSteps() {
		e := ledger.NewEvent(t.At, task, run, s, ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf(
			"operation", string(vocab.OpLeaseAdopted), "reason_code", string(vocab.ReasonLeaseAdopted), "takeover_at", at,
			"generation", t.fences[s]))
		e.DedupKey = "lease-adopted:" + task + ":" + run + ":" + s + ":" + at
		events = append(events, e)
	}
	for _, s := range t.FailedSteps {
		e := ledger.NewEvent(t.At, task, run, s, ledger.EventStepFailed, ledger.SeverityError, ledger.ObjectOf(
			"reason_code", string(vocab.ReasonLeaseNotAdopted), "takeover_at", at))
		e.DedupKey = "step-failed:" + task + ":" + run + ":" + s + ":" + at
		events = append(events, e)
	}
	switch {
	case t.planned:
		e := ledger.NewEvent(t.At, task, run, t.plan.ResumeStepID, ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf(
			"operation", string(vocab.OpHandoffApplied), "takeover_at", at, "resume_step_id", t.plan.ResumeStepID,
			"next_action", t.plan.NextAction, "resumable_step_ids", t.plan.ResumableStepIDs, "package_path", packagePath))
		e.DedupKey = "handoff-applied:" + task + ":" + run + ":" + at
		events = append(events, e)
	case t.handoffErr != nil:
		e := ledger.NewEvent(t.At, task, run, t.Spec.Step, ledger.EventSystem, ledger.SeverityError, ledger.ObjectOf(
			"operation", string(vocab.OpHandoffApplyFailed), "reason_code", string(vocab.ReasonHandoffApply),
			"error", t.handoffErr.Error(), "takeover_at", at))
		e.DedupKey = "handoff-failed:" + task + ":" + run + ":" + at
		events = append(events, e)
	}
	return events
}
