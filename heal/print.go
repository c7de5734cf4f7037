package heal

import "github.com/daokit/daokit/ledger"

// Object is the resume plan as `daokit handoff --apply` prints it, the
// Python tool's way: no resume step is null, empty lists are []. It is
// one function so that the command prints the same whether it ran
// locally or the controller holding the root carried it out.
func (p ResumePlan) Object() ledger.Object {
	var resume any
	if p.ResumeStepID != "" {
		resume = p.ResumeStepID
	}
	items := p.OpenAcceptanceItems
	if items == nil {
		items = []ledger.AcceptanceItem{}
	}
	return ledger.ObjectOf("task_id", p.TaskID, "run_id", p.RunID, "resume_step_id", resume,
		"resumable_step_ids", nonNil(p.ResumableStepIDs), "skipped_step_ids", nonNil(p.SkippedStepIDs),
		"open_acceptance_items", items, "next_action", p.NextAction, "package_path", p.PackagePath, "loaded_at", p.LoadedAt)
}

// Object is the takeover as `daokit takeover` prints it (the Python
// tool's keys, in its order), wherever it was carried out.
func (t *Takeover) Object() ledger.Object {
	return ledger.ObjectOf("task_id", t.Spec.TaskID, "run_id", t.Spec.RunID, "takeover_at", ledger.FormatTime(t.At),
		"adopted_step_ids", nonNil(t.AdoptedSteps()), "failed_step_ids", nonNil(t.FailedSteps))
}
