package heal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/daokit/daokit/ledger"
)

// KeepSet is the relay context that survives a handoff: what the person
// wants and where the controller routed it.
type KeepSet struct {
	Goal              string
	Constraints       []string
	LatestInstruction string
	CurrentBlockers   []string
	Route             *ledger.Route
}

// HandoffOptions tune CreateHandoff as DAOKit's flags do.
type HandoffOptions struct {
	// IncludeAcceptedSteps makes accepted steps resumable too.
	IncludeAcceptedSteps bool
	// EvidencePaths, when set, replaces the evidence derived from the
	// steps' expected outputs (blank entries dropped, duplicates removed).
	EvidencePaths []string
	// Keep is the relay keep set to carry along; Goal defaults to the
	// pipeline's goal.
	Keep KeepSet
}

// ErrNoTask is returned when the pipeline has no task or run to hand off.
var ErrNoTask = errors.New("handoff needs a pipeline with a task_id and run_id")

// StepClass is how a handoff classifies a step.
type StepClass int

// Step classes.
const (
	StepPending StepClass = iota
	StepAccepted
	StepFailed
)

// ClassifyStep reads role_lifecycle["step:<id>"] the way the Python tool
// does: accepted/done/completed/passed/verified (alone or as a prefix
// followed by _ or -) is accepted; anything containing "failed", or equal
// to "error" or "blocked", is failed; everything else is pending.
func ClassifyStep(lc ledger.Lifecycle, stepID string) StepClass {
	v := strings.ToLower(strings.TrimSpace(lc.Get("step:" + stepID)))
	for _, m := range []string{"accepted", "done", "completed", "passed", "verified"} {
		if v == m || strings.HasPrefix(v, m+"_") || strings.HasPrefix(v, m+"-") {
			return StepAccepted
		}
	}
	if strings.Contains(v, "failed") || v == "error" || v == "blocked" {
		return StepFailed
	}
	return StepPending
}

type stepPlan struct {
	order     []*ledger.Step
	status    ledger.StepStatus
	resumable []string
	skipped   []string
}

func planSteps(p *ledger.PipelineState, includeAccepted bool) stepPlan {
	var plan stepPlan
	seen := map[string]bool{}
	for i := range p.Steps {
		s := &p.Steps[i]
		id := strings.TrimSpace(s.ID)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		plan.order = append(plan.order, s)
		class := ClassifyStep(p.RoleLifecycle, id)
		switch class {
		case StepAccepted:
			plan.status.Accepted = append(plan.status.Accepted, id)
		case StepFailed:
			plan.status.Failed = append(plan.status.Failed, id)
		default:
			plan.status.Pending = append(plan.status.Pending, id)
		}
		if class == StepAccepted && !includeAccepted {
			plan.skipped = append(plan.skipped, id)
		} else {
			plan.resumable = append(plan.resumable, id)
		}
	}
	return plan
}

// CreateHandoff builds a handoff package from a pipeline, hashed and ready
// to write.
func CreateHandoff(p *ledger.PipelineState, now time.Time, opts HandoffOptions) (ledger.HandoffPackage, error) {
	if strings.TrimSpace(p.TaskID) == "" || strings.TrimSpace(p.RunID) == "" {
		return ledger.HandoffPackage{}, ErrNoTask
	}
	plan := planSteps(p, opts.IncludeAcceptedSteps)
	current := ""
	switch {
	case slices.Contains(plan.resumable, p.CurrentStep):
		current = p.CurrentStep
	case len(plan.resumable) > 0:
		current = plan.resumable[0]
	}
	pkg := ledger.HandoffPackage{
		SchemaVersion:    ledger.SchemaVersion,
		TaskID:           p.TaskID,
		RunID:            p.RunID,
		CurrentStep:      current,
		NextAction:       ledger.NextActionComplete,
		ResumableStepIDs: plan.resumable,
		SkippedStepIDs:   plan.skipped,
		StepStatus:       plan.status,
		CreatedAt:        ledger.FormatTime(now),
	}
	if current != "" {
		pkg.NextAction = ledger.NextActionResume
	}
	var outputs []string
	for _, s := range plan.order {
		if !slices.Contains(plan.resumable, s.ID) {
			continue
		}
		for _, c := range s.AcceptanceCriteria {
			if c = strings.TrimSpace(c); c != "" {
				pkg.OpenAcceptanceItems = append(pkg.OpenAcceptanceItems, ledger.AcceptanceItem{StepID: s.ID, Criterion: c})
			}
		}
		outputs = append(outputs, s.ExpectedOutputs...)
	}
	if opts.EvidencePaths != nil {
		outputs = opts.EvidencePaths
	}
	pkg.EvidencePaths = uniqueNonBlank(outputs)
	keep := opts.Keep
	if keep.Goal == "" {
		keep.Goal = p.Goal
	}
	pkg.Goal, pkg.Constraints, pkg.LatestInstruction = keep.Goal, keep.Constraints, keep.LatestInstruction
	pkg.CurrentBlockers, pkg.RouteSummary = keep.CurrentBlockers, keep.Route
	hash, err := pkg.ComputeHash()
	if err != nil {
		return ledger.HandoffPackage{}, err
	}
	pkg.PackageHash = hash
	return pkg, nil
}

func uniqueNonBlank(list []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// ResumePlan is what applying a handoff decided.
type ResumePlan struct {
	TaskID              string                  `json:"task_id"`
	RunID               string                  `json:"run_id"`
	ResumeStepID        string                  `json:"resume_step_id"`
	ResumableStepIDs    []string                `json:"resumable_step_ids"`
	SkippedStepIDs      []string                `json:"skipped_step_ids"`
	OpenAcceptanceItems []ledger.AcceptanceItem `json:"open_acceptance_items"`
	NextAction          string                  `json:"next_action"`
	PackagePath         string                  `json:"package_path"`
	LoadedAt            string                  `json:"loaded_at"`
}

// MismatchError says the package belongs to another task or run.
type MismatchError struct {
	Field          string // "task_id" or "run_id"
	Ledger, Handed string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s mismatch between ledger (%s) and handoff package (%s)", e.Field, e.Ledger, e.Handed)
}

// ApplyHandoff validates pkg and applies it to p (mutated in place): it
// picks the step to resume and records the plan in role_lifecycle. Unlike
// the Python tool it never discards role_lifecycle entries, and empty step
// lists are written as "none" so that the pipeline stays valid.
func ApplyHandoff(p *ledger.PipelineState, pkg ledger.HandoffPackage, includeAccepted bool, now time.Time) (ResumePlan, error) {
	if err := pkg.Validate(); err != nil {
		return ResumePlan{}, fmt.Errorf("apply handoff: %w", err)
	}
	if p.TaskID != "" && p.TaskID != pkg.TaskID {
		return ResumePlan{}, &MismatchError{Field: "task_id", Ledger: p.TaskID, Handed: pkg.TaskID}
	}
	if p.RunID != "" && p.RunID != pkg.RunID {
		return ResumePlan{}, &MismatchError{Field: "run_id", Ledger: p.RunID, Handed: pkg.RunID}
	}
	p.TaskID, p.RunID = pkg.TaskID, pkg.RunID
	plan := planSteps(p, includeAccepted)
	resumable, skipped := plan.resumable, plan.skipped
	resume := ""
	switch {
	case slices.Contains(resumable, p.CurrentStep):
		resume = p.CurrentStep
	case slices.Contains(resumable, pkg.CurrentStep):
		resume = pkg.CurrentStep
	case len(resumable) > 0:
		resume = resumable[0]
	case len(pkg.ResumableStepIDs) > 0:
		resume = pkg.ResumableStepIDs[0]
		resumable, skipped = pkg.ResumableStepIDs, nil
	}
	var items []ledger.AcceptanceItem
	for _, s := range plan.order {
		if !slices.Contains(resumable, s.ID) {
			continue
		}
		for _, c := range s.AcceptanceCriteria {
			if c = strings.TrimSpace(c); c != "" {
				items = append(items, ledger.AcceptanceItem{StepID: s.ID, Criterion: c})
			}
		}
	}
	if len(items) == 0 {
		items = pkg.OpenAcceptanceItems
	}
	next := ledger.NextActionComplete
	if resume != "" {
		next = pkg.NextAction
		if strings.TrimSpace(next) == "" {
			next = ledger.NextActionResume
		}
	}
	p.CurrentStep = resume
	var failed, pending []string
	for _, id := range resumable {
		if slices.Contains(plan.status.Failed, id) {
			failed = append(failed, id)
		}
		if slices.Contains(plan.status.Pending, id) {
			pending = append(pending, id)
		}
	}
	lc := p.RoleLifecycle.
		With("handoff_resume_step", orNone(resume)).
		With("handoff_next_action", next).
		With("handoff_resumable_steps", joinOrNone(resumable)).
		With("handoff_skipped_steps", joinOrNone(skipped)).
		With("handoff_failed_steps", joinOrNone(failed)).
		With("handoff_pending_steps", joinOrNone(pending))
	p.RoleLifecycle = lc
	return ResumePlan{
		TaskID: p.TaskID, RunID: p.RunID, ResumeStepID: resume,
		ResumableStepIDs: nonNil(resumable), SkippedStepIDs: nonNil(skipped),
		OpenAcceptanceItems: items, NextAction: next, LoadedAt: ledger.FormatTime(now),
	}, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func joinOrNone(list []string) string { return orNone(strings.Join(list, ",")) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
