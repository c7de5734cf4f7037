package controller

import (
	"maps"
	"slices"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// reviewMark is a change waiting for review as REVIEW_PENDING recorded
// it: enough to rebuild the review and its worktree in a successor
// controller when the pipeline file shows another run.
type reviewMark struct {
	// Step is where the route stood; Key the worktree's key (the step,
	// or runTreeKey for a run whose steps share one worktree).
	Step       string `json:"step"`
	Key        string `json:"key"`
	Path       string `json:"path"`
	Branch     string `json:"branch"`
	Base       string `json:"base,omitempty"`
	BaseBranch string `json:"base_branch"`
	Repo       string `json:"repo"`
}

// reviewMarkOf reads a REVIEW_PENDING event; nil for one written before
// the event named its repository and key (nothing to rebuild from).
func reviewMarkOf(e *ledger.Event) *reviewMark {
	p := e.Payload
	m := &reviewMark{Step: e.StepID, Key: p.String("key"), Path: p.String("path"), Branch: p.String("branch"),
		Base: p.String("base"), BaseBranch: p.String("base_branch"), Repo: p.String("repo")}
	if m.Key == "" || m.Repo == "" || m.Path == "" || m.Branch == "" {
		return nil
	}
	return m
}

// treeMarkOf reads a WORKTREE_READY event: the worktree of its step
// (the step's own, or the run's shared one under runTreeKey).
func treeMarkOf(e *ledger.Event) *reviewMark {
	p := e.Payload
	m := &reviewMark{Step: e.StepID, Key: e.StepID, Path: p.String("path"), Branch: p.String("branch"),
		Base: p.String("base"), BaseBranch: p.String("base_branch"), Repo: p.String("repo")}
	if m.Key == "" || m.Repo == "" || m.Path == "" || m.Branch == "" {
		return nil
	}
	return m
}

// restoreTree puts the worktree the log says a run readied back into
// the run rebuilt at start, unless its pipeline has it (the run the
// pipeline file shows): a successor reviews a run's shared worktree
// after its workflow (see reviewFlow), and a step's change that was
// never put to the person (see sendToReview), only if it finds them.
func restoreTree(p *ledger.PipelineState, m *reviewMark) {
	if m == nil || p.RoleLifecycle.Get(keyTreePath+m.Key) != "" {
		return
	}
	p.RoleLifecycle = p.RoleLifecycle.With(keyTreePath+m.Key, m.Path).With(keyTreeBranch+m.Key, m.Branch).
		With(keyTreeBase+m.Key, m.Base).With(keyTreeBaseBranch+m.Key, m.BaseBranch).With(keyTreeRepo+m.Key, m.Repo)
}

// restoreReview puts a review the log says is pending back into a run
// rebuilt at start: its worktree's lifecycle keys (recordedTree reads
// them) and the review marker, so that the run waits for the person's
// verdict again instead of finishing without one. A pipeline that
// already shows the review (the run the pipeline file holds) is left as
// it is.
func restoreReview(p *ledger.PipelineState, m *reviewMark) {
	if m == nil {
		return
	}
	restoreTree(p, m)
	if !reviewPending(p, m.Step) {
		markReview(p, m.Step, m.Key)
	}
}

// adoptEnded rebuilds the runs that finished FAILED or BLOCKED and wait
// for the person's /retry (and those DONE as a pull request, which a
// /reject sends round again: adoptDone), so that a successor controller still knows
// them (the window lists them, /retry finds them by their ids, and a
// bare /retry the latest run's). They are not started: a retry does
// that. Called before adoptUnfinished, so that an open run stays the
// current one.
func (c *Controller) adoptEnded(list []indexEntry) {
	c.do(func(st *loopState) {
		for _, en := range list {
			if en.Final == ledger.StatusDone {
				c.adoptDone(st, en) // index_pr.go
				continue
			}
			r := c.newRun(en.instruction())
			latest := st.pipeline.TaskID == r.pipeline.TaskID && st.pipeline.RunID == r.pipeline.RunID && isFinal(st.pipeline.Status)
			if latest {
				r.pipeline = st.pipeline
			} else {
				for _, step := range en.Completed {
					markStepCompleted(&r.pipeline, step)
				}
				applyRecords(&r.pipeline, en.Records, en.DoneThrough)
				restoreFollowUps(&r.pipeline, en.FollowUps)
				step := en.FinalStep
				if step == "" {
					step = r.pipeline.CurrentStep
				}
				markStepFailed(&r.pipeline, step, en.FinalReason, en.Final == ledger.StatusBlocked)
			}
			r.final, r.endReason, r.workerRan = r.pipeline.Status, en.FinalReason, en.Started
			r.attempts = maps.Clone(en.Attempts) // a /retry numbers on
			r.quiet = true
			// Its last attempt failed: that is what the window shows.
			r.life = c.newLifecycle(r, r.pipeline.CurrentStep)
			reason := en.FinalReason
			if reason == "" {
				reason = ReasonInterrupted
			}
			_ = r.life.To(stateFailed, reason)
			close(r.done)
			// Only the run the pipeline file shows (the latest) becomes the
			// current one: a bare /retry must not revive an older run.
			st.order = append(st.order, r)
			if latest {
				st.current = r
			}
		}
	})
}

// sendToReview puts back under review the change of a step that
// completed in a worktree of its own but was never put to the person
// (the log's STEP_COMPLETED has no REVIEW_PENDING nor acceptance after
// it: a controller died between them). Without it the successor would
// count the step done and end the run DONE with the change unmerged in
// its worktree. The step waits for review again; awaitReview first
// looks whether it changed anything, and one that did not completes with
// no_change. Only the log tells this (the pipeline file is written
// after it), so no git process runs on the normal path.
//
// A run that shares one worktree needs only its tree back (see
// restoreTree): its review follows its workflow's end, whatever
// restarted it (see reviewFlow).
func sendToReview(p *ledger.PipelineState, tree *reviewMark) {
	if tree == nil || tree.Key == runTreeKey || isFinal(p.Status) || reviewPending(p, p.CurrentStep) {
		return
	}
	step := tree.Key
	if slices.Contains(workflow.ProgressOf(p.RoleLifecycle.Get).NoChange, step) {
		return
	}
	markReview(p, step, step)
}
