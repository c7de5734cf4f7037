package controller

import (
	"maps"
	"strconv"

	"github.com/daokit/daokit/ledger"
)

// prMark is the pull request (merge request) an instruction's accepted
// change became, as PULL_REQUEST recorded it, with the worktree it came
// from: a run that ended DONE so stays known to a successor controller,
// which a person's /reject sends round again (see prround.go).
type prMark struct {
	Step   string      `json:"step,omitempty"`
	URL    string      `json:"url"`
	Number string      `json:"number"`
	Forge  string      `json:"forge"`
	Repo   string      `json:"repo,omitempty"`
	Tip    string      `json:"tip,omitempty"`
	Tree   *reviewMark `json:"tree,omitempty"`
}

// prMarkOf reads a PULL_REQUEST event of a run whose worktree is tree.
func prMarkOf(e *ledger.Event, tree *reviewMark) *prMark {
	p := e.Payload
	m := &prMark{Step: e.StepID, URL: p.String("url"), Number: strconv.Itoa(payloadInt(p, "number")),
		Forge: p.String("forge"), Repo: p.String("repo"), Tip: p.String("tip"), Tree: tree}
	if m.URL == "" || m.Forge == "" || m.Number == "0" {
		return nil
	}
	return m
}

// restorePR puts the pull request and its worktree back into a run
// rebuilt at start (the pipeline file shows another run).
func restorePR(p *ledger.PipelineState, m *prMark) {
	if m == nil {
		return
	}
	restoreTree(p, m.Tree)
	p.RoleLifecycle = p.RoleLifecycle.With(KeyPullRequest, m.URL).With(KeyPullRequestNumber, m.Number).
		With(KeyPullRequestForge, m.Forge).With(KeyPullRequestRepo, m.Repo).With(KeyPullRequestHead, m.Tip)
}

// adoptDone rebuilds a run that ended DONE with its change in a
// pull request (see endEntry): it is not started, but a person's
// /reject finds it and sends it round again. Called on the state loop, from
// adoptEnded.
func (c *Controller) adoptDone(st *loopState, en indexEntry) {
	r := c.newRun(en.instruction())
	latest := st.pipeline.TaskID == r.pipeline.TaskID && st.pipeline.RunID == r.pipeline.RunID && st.pipeline.Status == ledger.StatusDone
	if latest {
		r.pipeline = st.pipeline
	} else {
		for _, step := range en.Completed {
			markStepCompleted(&r.pipeline, step)
		}
		applyRecords(&r.pipeline, en.Records, en.DoneThrough)
		restoreFollowUps(&r.pipeline, en.FollowUps)
		restorePR(&r.pipeline, en.PR)
		if en.PR != nil && en.PR.Step != "" {
			r.pipeline.CurrentStep = en.PR.Step
		}
		markRunDone(&r.pipeline)
	}
	r.final, r.workerRan, r.quiet = ledger.StatusDone, true, true
	r.attempts = maps.Clone(en.Attempts) // another round numbers on
	r.life = c.newLifecycle(r, r.pipeline.CurrentStep)
	for _, s := range []string{stateWaiting, stateRequesting, stateGenerating, statePersisting, stateCompleted} {
		_ = r.life.To(s, "")
	}
	close(r.done)
	st.order = append(st.order, r)
	if latest {
		st.current = r
	}
}
