package heal

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// takeoverOf registers a live worker lease on S1 and an expired one on
// S2 of threeSteps' run, and plans a takeover of that run.
func takeoverOf(t *testing.T, spec TakeoverSpec) (ledger.PipelineState, ledger.Leases, Takeover) {
	t.Helper()
	p, reg := threeSteps(), ledger.NewLeases(t0)
	for _, s := range []struct {
		step string
		ttl  time.Duration
	}{{"S1", time.Hour}, {"S2", time.Second}} {
		if _, err := Register(&reg, LeaseSpec{Lane: "worker", TaskID: p.TaskID, RunID: p.RunID, StepID: s.step,
			Holder: Holder{ThreadID: "w", PID: 7}, TTL: s.ttl}, t0); err != nil {
			t.Fatal(err)
		}
	}
	spec.TaskID, spec.RunID, spec.Successor = p.TaskID, p.RunID, Holder{ThreadID: "succ", PID: 42}
	tk, err := PlanTakeover(&p, &reg, spec, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return p, reg, tk
}

func TestPlanTakeoverFencesAndHandsOff(t *testing.T) {
	t.Parallel()
	p, _, tk := takeoverOf(t, TakeoverSpec{Step: "S1", Reason: vocab.ReasonHeartbeatStale, TTL: time.Minute})
	if Fence(&p, "S1") != 1 || tk.Generation != 1 || Fence(&p, "S2") != 0 {
		t.Errorf("fences S1 %d S2 %d, generation %d; want 1, 0, 1", Fence(&p, "S1"), Fence(&p, "S2"), tk.Generation)
	}
	if got := p.RoleLifecycle.Get("step:S1"); got != "taken_over:HEARTBEAT_STALE" {
		t.Errorf("step:S1 = %q", got)
	}
	if got := p.RoleLifecycle.Get("step:S2"); got != string(vocab.StepFailedNonAdopted) {
		t.Errorf("step:S2 = %q", got)
	}
	pkg, ok := tk.Handoff()
	if !ok || pkg.CurrentStep != "S1" || pkg.RouteSummary == nil {
		t.Fatalf("handoff %v %+v", ok, pkg)
	}
	tk.ApplyHandoff(&p, nil)
	var kinds []string
	for _, e := range tk.Events("state/handoff_package.json") {
		kinds = append(kinds, e.EventType+"/"+e.Payload.String("operation")+"/"+e.Payload.String("reason_code"))
		if e.Payload.String("takeover_at") != ledger.FormatTime(t0.Add(time.Minute)) {
			t.Errorf("%s without the takeover's time", e.EventType)
		}
	}
	want := []string{"LEASE_TAKEOVER//HEARTBEAT_STALE", "SYSTEM/LEASE_ADOPTED/VALID_UNEXPIRED_LEASE",
		"STEP_FAILED//LEASE_NOT_ADOPTED", "SYSTEM/HANDOFF_APPLIED/"}
	if !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	// A second takeover of the step raises its generation again.
	if _, err := PlanTakeover(&p, &ledger.Leases{}, tk.Spec, t0.Add(2*time.Minute)); err != nil || Fence(&p, "S1") != 2 {
		t.Errorf("second takeover: fence %d, err %v", Fence(&p, "S1"), err)
	}
}

func TestPlanTakeoverReportsAHandoffThatWasNotWritten(t *testing.T) {
	t.Parallel()
	p, _, tk := takeoverOf(t, TakeoverSpec{Reason: vocab.ReasonManualTakeover})
	tk.ApplyHandoff(&p, errors.New("disk full"))
	events := tk.Events("")
	last := events[len(events)-1]
	if last.Payload.String("operation") != string(vocab.OpHandoffApplyFailed) || last.Payload.String("error") != "disk full" ||
		events[0].Severity != ledger.SeverityInfo {
		t.Errorf("last event %s %v, takeover severity %s", last.EventType, last.Payload, events[0].Severity)
	}
	if p.RoleLifecycle.Get("handoff_resume_step") != "" {
		t.Errorf("a package not on disk was applied")
	}
}

func TestPlanTakeoverOfNothingHandsNothingOff(t *testing.T) {
	t.Parallel()
	p, reg := threeSteps(), ledger.NewLeases(t0)
	tk, err := PlanTakeover(&p, &reg, TakeoverSpec{TaskID: p.TaskID, RunID: p.RunID, Reason: vocab.ReasonManualTakeover,
		Successor: Holder{ThreadID: "succ", PID: 42}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tk.Handoff(); ok || len(tk.Events("")) != 1 || p.Succession.LastTakeoverAt == "" {
		t.Errorf("handoff %v, %d events, last_takeover_at %q", ok, len(tk.Events("")), p.Succession.LastTakeoverAt)
	}
}

func TestTakeoverChangesAreOneCommit(t *testing.T) {
	t.Parallel()
	p, reg, tk := takeoverOf(t, TakeoverSpec{Reason: vocab.ReasonManualTakeover})
	c := tk.Changes(&p, &reg, "state/handoff_package.json")
	if c.Pipeline != &p || c.Leases != &reg || c.Handoff == nil || c.Handoff.CurrentStep != "S1" {
		t.Fatalf("changes: pipeline %v, leases %v, handoff %+v", c.Pipeline != nil, c.Leases != nil, c.Handoff)
	}
	last := c.Events[len(c.Events)-1]
	if last.Payload.String("operation") != string(vocab.OpHandoffApplied) || p.RoleLifecycle.Get("handoff_resume_step") != "S1" {
		t.Errorf("last event %v, handoff_resume_step %q", last.Payload, p.RoleLifecycle.Get("handoff_resume_step"))
	}
	// Another run's pipeline is left alone, and nothing is handed off.
	other := threeSteps()
	other.RunID = "RUN-2"
	reg2 := ledger.NewLeases(t0)
	tk2, err := PlanTakeover(&other, &reg2, TakeoverSpec{TaskID: "DKT-1", RunID: "RUN-1", Reason: vocab.ReasonManualTakeover,
		Successor: Holder{ThreadID: "succ", PID: 42}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if c := tk2.Changes(&other, &reg2, ""); c.Pipeline != nil || c.Handoff != nil || other.Succession.LastTakeoverAt != "" {
		t.Errorf("another run's pipeline changed: %+v", c)
	}
}

// A start-up succession reads the end of a step's worker back from its
// logs and resumes the run from the event log: that step's expired lease
// does not fail it, nothing says it failed and no handoff is built,
// while the live lease is adopted and fenced as in every takeover.
func TestPlanTakeoverLeavesReadBackStepsUnfailed(t *testing.T) {
	t.Parallel()
	p, _, tk := takeoverOf(t, TakeoverSpec{Reason: vocab.ReasonSuccession, ReadBack: []string{"S2"}, NoHandoff: true})
	if len(tk.FailedSteps) != 0 || p.RoleLifecycle.Get("step:S2") == string(vocab.StepFailedNonAdopted) {
		t.Errorf("failed %v, step:S2 = %q; want the read-back step left as it was", tk.FailedSteps, p.RoleLifecycle.Get("step:S2"))
	}
	if got := tk.AdoptedSteps(); !slices.Equal(got, []string{"S1"}) || Fence(&p, "S1") != 1 {
		t.Errorf("adopted %v with fence %d, want [S1] raised to 1", got, Fence(&p, "S1"))
	}
	if _, ok := tk.Handoff(); ok {
		t.Error("a succession that resumes from the log built a handoff")
	}
	var kinds []string
	for _, e := range tk.Events("state/handoff_package.json") {
		kinds = append(kinds, e.EventType+"/"+e.Payload.String("operation"))
	}
	if want := []string{"LEASE_TAKEOVER/", "SYSTEM/LEASE_ADOPTED"}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
}
