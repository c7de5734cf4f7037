package heal

import (
	"errors"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

var t0 = time.Date(2026, 11, 22, 1, 45, 10, 0, time.UTC)

func threeSteps() ledger.PipelineState {
	p := ledger.NewPipelineState(t0)
	p.TaskID, p.RunID, p.Goal, p.Status, p.CurrentStep = "DKT-1", "RUN-1", "ship it", ledger.StatusExecute, "S1"
	for _, id := range []string{"S1", "S2", "S3"} {
		p.Steps = append(p.Steps, ledger.Step{ID: id, Title: "t " + id, Category: "c", Goal: "g",
			AcceptanceCriteria: []string{"criterion " + id}, ExpectedOutputs: []string{id + ".md", "report.md"}})
	}
	return p
}

func TestCreateHandoffSkipsAcceptedSteps(t *testing.T) {
	t.Parallel()
	p := threeSteps()
	p.RoleLifecycle = p.RoleLifecycle.With("step:S1", "accepted").With("step:S2", "done_by_worker")
	pkg, err := CreateHandoff(&p, t0, HandoffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pkg.CurrentStep != "S3" || pkg.NextAction != "resume" {
		t.Errorf("current %q next %q, want S3 resume", pkg.CurrentStep, pkg.NextAction)
	}
	if got := pkg.SkippedStepIDs; len(got) != 2 || got[0] != "S1" || got[1] != "S2" {
		t.Errorf("skipped %v, want [S1 S2]", got)
	}
	if len(pkg.OpenAcceptanceItems) != 1 || pkg.OpenAcceptanceItems[0].Criterion != "criterion S3" {
		t.Errorf("open items %v, want S3's criterion", pkg.OpenAcceptanceItems)
	}
	if got := pkg.EvidencePaths; len(got) != 2 || got[0] != "S3.md" || got[1] != "report.md" {
		t.Errorf("evidence %v", got)
	}
	if pkg.Goal != "ship it" {
		t.Errorf("goal %q, want the pipeline's", pkg.Goal)
	}
	if err := pkg.Validate(); err != nil {
		t.Errorf("created package does not validate: %v", err)
	}
}

func TestCreateHandoffFailedAndPendingStayResumable(t *testing.T) {
	t.Parallel()
	p := threeSteps()
	p.RoleLifecycle = p.RoleLifecycle.With("step:S1", "failed_non_adopted_lease")
	pkg, _ := CreateHandoff(&p, t0, HandoffOptions{EvidencePaths: []string{" a ", "a", "", "b"}})
	if pkg.CurrentStep != "S1" || len(pkg.ResumableStepIDs) != 3 {
		t.Errorf("current %q resumable %v", pkg.CurrentStep, pkg.ResumableStepIDs)
	}
	if got := pkg.StepStatus.Failed; len(got) != 1 || got[0] != "S1" {
		t.Errorf("failed %v", got)
	}
	if got := pkg.EvidencePaths; len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("evidence override %v, want [a b]", got)
	}
}

func TestCreateHandoffNeedsTask(t *testing.T) {
	t.Parallel()
	p := ledger.NewPipelineState(t0)
	if _, err := CreateHandoff(&p, t0, HandoffOptions{}); !errors.Is(err, ErrNoTask) {
		t.Fatalf("got %v, want ErrNoTask", err)
	}
}

func TestApplyHandoffResumesAndKeepsPipelineValid(t *testing.T) {
	t.Parallel()
	p := threeSteps()
	p.RoleLifecycle = p.RoleLifecycle.With("step:S1", "accepted")
	pkg, _ := CreateHandoff(&p, t0, HandoffOptions{})
	p.CurrentStep = ""
	plan, err := ApplyHandoff(&p, pkg, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if plan.ResumeStepID != "S2" || p.CurrentStep != "S2" || plan.NextAction != "resume" {
		t.Errorf("plan %+v current %q, want resume S2", plan, p.CurrentStep)
	}
	if got := p.RoleLifecycle.Get("handoff_skipped_steps"); got != "S1" {
		t.Errorf("handoff_skipped_steps %q", got)
	}
	if got := p.RoleLifecycle.Get("handoff_failed_steps"); got != "none" {
		t.Errorf("empty list written as %q, want none (an empty string breaks the schema)", got)
	}
	if p.RoleLifecycle.Get("orchestrator") != "idle" {
		t.Errorf("existing role_lifecycle entries must survive")
	}
	p.UpdatedAt = ledger.FormatTime(t0)
	if err := p.Validate(); err != nil {
		t.Errorf("pipeline after apply does not validate: %v", err)
	}
}

func TestApplyHandoffRefusesOtherRunAndTampering(t *testing.T) {
	t.Parallel()
	p := threeSteps()
	pkg, _ := CreateHandoff(&p, t0, HandoffOptions{})
	other := threeSteps()
	other.RunID = "RUN-2"
	var me *MismatchError
	if _, err := ApplyHandoff(&other, pkg, false, t0); !errors.As(err, &me) || me.Field != "run_id" {
		t.Errorf("other run: got %v, want a run_id MismatchError", err)
	}
	pkg.NextAction = "complete"
	var ve *ledger.ValidationError
	if _, err := ApplyHandoff(&p, pkg, false, t0); !errors.As(err, &ve) || ve.Code != ledger.ProblemHash {
		t.Errorf("tampered: got %v, want a hash problem", err)
	}
}
