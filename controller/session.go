package controller

import (
	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Operations of the session SYSTEM events.
const (
	// opSessionBound: a worker reported its resume handle (payload:
	// session_id, lane, dir, worktree). Recorded at once, not when the
	// worker ends, so that a crash does not lose it.
	opSessionBound = string(vocab.OpSessionBound)
	// opSessionResume: how a step with a resume_command starts: "resume"
	// with the handle, or "fresh" with the reason_code why not.
	opSessionResume = string(vocab.OpSessionResume)
)

// Lifecycle keys of a lane's latest resume handle and its owner, each
// followed by the lane name. A lane keeps one handle (the latest) because
// its resume_command is the lane's; the owner is what makes it safe.
const (
	keySession     = "session:"
	keySessionStep = "session_step:"
	keySessionDir  = "session_dir:"
)

// resumeChoice is whether a step's worker resumes a recorded session.
type resumeChoice struct {
	// handle is the session to resume, "" to start fresh.
	handle string
	// why is the reason code of a fresh start despite a recorded handle:
	// it belongs to another step or another folder (peers resumed the
	// wrong conversation this way: agent-deck #1815, claude-code #28314).
	why string
	// other is the handle that was not used.
	other string
}

// chooseResume decides whether step, about to run in dir, resumes the
// lane's recorded session: only when the lane has a resume_command and
// the handle belongs to this very step and folder.
func chooseResume(p *ledger.PipelineState, lane config.Lane, step, dir string) resumeChoice {
	if !lane.CanResume() {
		return resumeChoice{}
	}
	lc := p.RoleLifecycle
	handle := lc.Get(keySession + lane.Name)
	switch {
	case handle == "":
		return resumeChoice{}
	case lc.Get(keySessionStep+lane.Name) != step:
		return resumeChoice{why: ReasonSessionOtherStep, other: handle}
	case lc.Get(keySessionDir+lane.Name) != dir:
		return resumeChoice{why: ReasonSessionOtherFolder, other: handle}
	}
	return resumeChoice{handle: handle}
}

// recordResume records how a step with a resume handle around starts.
func (c *Controller) recordResume(r *run, step, lane string, rc resumeChoice) {
	if rc.handle == "" && rc.why == "" {
		return
	}
	p := r.pipeline
	if rc.handle != "" {
		c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, opSessionResume,
			"decision", "resume", "session_id", rc.handle, "lane", lane))
		return
	}
	c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityInfo, opSessionResume,
		"decision", "fresh", "reason_code", rc.why, "session_id", rc.other, "lane", lane))
}

// bindSession records a worker's resume handle with the step and folder
// it belongs to, as soon as the worker reports it: the pipeline goes to
// the document writer at once, without holding up the worker's output.
func (c *Controller) bindSession(r *run, step, lane, handle string) {
	var dir, worktree, taskID, runID string
	bound := false
	c.do(func(*loopState) {
		p := &r.pipeline
		lc := p.RoleLifecycle
		if bound = lc.Get(keySession+lane) == handle && lc.Get(keySessionStep+lane) == step && lc.Get(keySessionDir+lane) == r.dir; bound {
			return
		}
		dir = r.dir
		if r.tree != nil {
			worktree = r.tree.wt.Path
		}
		p.RoleLifecycle = lc.With(keySession+lane, handle).With(keySessionStep+lane, step).With(keySessionDir+lane, dir)
		taskID, runID = p.TaskID, p.RunID
	})
	if bound {
		return // bound already
	}
	c.note(c.events.system(taskID, runID, step, ledger.SeverityInfo, opSessionBound,
		"session_id", handle, "lane", lane, "dir", dir, "worktree", worktree))
	c.persistSoon(r)
}
