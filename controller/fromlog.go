package controller

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
	"github.com/daokit/daokit/workflow"
)

// opStepReadBack records a successor's decision about a worker that a
// dead controller left without recording its end (payload: finished,
// why, pid, attempt): finished, the step ends from the worker's logs
// and its STEP_COMPLETED says from_log; not finished, the step runs
// again and why says what the logs lacked.
const opStepReadBack = string(vocab.OpStepReadBack)

// What a successor found of a left worker (opStepReadBack's why): only
// readBackFinished ends the step from the log.
const (
	readBackAlive    = "worker_alive"     // it outlived the wait for its end
	readBackNoLog    = "log_unreadable"   // its logs are missing or shrank
	readBackNoResult = "no_result"        // it never wrote a complete result line
	readBackFailed   = "result_failed"    // its result says the work failed
	readBackFinished = "result_succeeded" // finished: its result says success
)

// The acceptance criteria of a step that ends without a review: stable
// codes (ACCEPTANCE_PASSED's criterion, labelled by vocab.Criterion in
// the reader's language) and the English text of its criteria list.
const (
	// criterionExitZero: the worker was seen to exit 0.
	criterionExitZero = string(vocab.CriterionExitZero)
	// criterionResultInLog: a step finished from its log (see
	// finishFromLog): its exit status died with the controller that
	// started it, and what was checked is the result line its log holds.
	criterionResultInLog = string(vocab.CriterionResultInLog)
	// CriterionNoChange: the step's worktree held no change to review
	// (see Controller.unchanged).
	CriterionNoChange = string(vocab.CriterionNoChange)
)

// stepCriterion is what the acceptance of a step that ended well
// checked: the code and its text.
func stepCriterion(res worker.Result) (code, text string) {
	if res.FromLog {
		return criterionResultInLog, "the worker's result in its log says success (its exit code was not observed)"
	}
	return criterionExitZero, "the worker finishes with exit code 0"
}

// readBackGoneAfter bounds the wait for a left worker to die once it was
// killed (a process in the kernel's uninterruptible sleep takes a while).
const readBackGoneAfter = 10 * time.Second

// finishFromLog decides, before step's attempt starts a worker, whether
// a worker that a dead controller left on the step had finished: that
// controller's log has its STEP_STARTED but no end, and the worker's
// exit status died with it. The worker is waited for (the dead
// controller's successor killed it if it still ran: see
// fenceOrphans), so that no two ever run for one step; then its
// logs are read back from where its attempt started (worker.Replay).
// Only a complete result line that says success is trusted: the step
// then ends as if the worker had just exited 0, through judge, with
// what it said handed to the workflow's callbacks, and no worker starts.
// No result, a torn last line, a failed result or unreadable logs run
// the step again, as before; a worker that does not die ends the attempt
// as a hung one's (restarted by the policy, never beside it). ok reports
// that the attempt ended here.
func (c *Controller) finishFromLog(r *run, step, lane string, laneCfg config.Lane, tree *stepTree) (out outcome, reason string, ok bool) {
	var u *unendedStep
	var taskID, runID string
	var obs *workflow.Observer
	c.do(func(*loopState) {
		u = r.unended
		r.unended = nil
		taskID, runID, obs = r.pipeline.TaskID, r.pipeline.RunID, r.observe
	})
	if u == nil || u.Step != step {
		return 0, "", false
	}
	artifacts, err := ledger.Layout{Root: c.opts.Root}.ArtifactDir(taskID, runID, step)
	if err != nil {
		return 0, "", false
	}
	kind := string(laneCfg.Kind)
	if kind == "" {
		kind = string(config.KindSim)
	}
	spec := worker.Spec{Kind: kind, ArtifactDir: artifacts, ArtifactRoot: c.opts.Root}
	from := worker.LogOffsets{Stdout: u.StdoutFrom, Stderr: u.StderrFrom}
	decided := func(why string) {
		severity := ledger.SeverityInfo
		if why != readBackFinished {
			severity = ledger.SeverityWarn
		}
		c.note(c.events.system(taskID, runID, step, severity, opStepReadBack,
			"finished", why == readBackFinished, "why", why, "pid", u.PID, "attempt", u.Attempt, "lane", u.Lane))
	}
	if !c.awaitGone(u.PID, taskID, readBackGoneAfter) {
		// Never a second worker beside it: the attempt ends as a hung
		// worker's does, and the next one, after the restart policy's
		// backoff, waits for it again (the policy's limit ends the run
		// BLOCKED, for a person, if it never dies).
		c.log.Warn("a worker left by a previous controller outlived the wait for its end", "pid", u.PID, "step", step)
		decided(readBackAlive)
		c.do(func(*loopState) {
			r.unended = u
		})
		c.transition(r, stateFailed, ReasonHung)
		return outcomeRestart, ReasonHung, true
	}
	// First the verdict alone: the callbacks hear the output only of a
	// worker whose end stands.
	seen, err := worker.Replay(spec, from, func(transcript.Record) {})
	switch res := seen.Summary.Result; {
	case err != nil:
		c.log.Warn("read back a left worker's logs", "step", step, "err", err)
		decided(readBackNoLog)
		c.readBackOnHub(r, laneCfg, u)
		return 0, "", false
	case res == nil:
		decided(readBackNoResult)
		c.readBackOnHub(r, laneCfg, u)
		return 0, "", false
	case res.Failed:
		decided(readBackFailed)
		return 0, "", false
	}
	// The step ends as if its worker had just exited: where it worked is
	// what the judge checks and what its session is bound to.
	dir := laneCfg.WorkDir(c.opts.Root)
	if tree != nil {
		dir = tree.dir
	}
	var top string
	c.do(func(*loopState) {
		r.attempt = u.Attempt
		r.sawAttempt(step, u.Attempt)
		r.tree, r.dir = tree, dir
		r.texts, r.output = r.texts[:0], workflow.Output{}
		top = r.treeTop()
	})
	usage := c.meter(r, laneCfg)
	c.transition(r, stateGenerating, "")
	replayed, err := worker.Replay(spec, from, func(rec transcript.Record) {
		r.texts = observeRecord(obs, r.texts, &rec, usage, top)
		for _, ev := range rec.Events {
			if ev.Type == transcript.EventSession && ev.ID != "" {
				c.bindSession(r, step, lane, ev.ID)
			}
		}
	})
	if err != nil {
		// Read once already: the logs changed under us. Run the step.
		c.log.Warn("read back a left worker's logs", "step", step, "err", err)
		decided(readBackNoLog)
		c.transition(r, stateFailed, ReasonInterrupted)
		return outcomeRestart, ReasonInterrupted, true
	}
	if err := worker.SyncLogs(spec); err != nil {
		// The step's end stands on what was read; its logs are for people.
		c.log.Warn("sync a left worker's logs", "step", step, "err", err)
	}
	decided(readBackFinished)
	c.transition(r, statePersisting, "")
	out, reason = c.judge(r, step, lane, worker.Result{PID: u.PID, ExitCode: 0, Stats: replayed.Stats,
		Summary: replayed.Summary, FromLog: true})
	return out, reason, true
}

// awaitGone waits until pid is no worker of this root and task any more
// (exited, or never ours), at most within, and reports whether it is
// gone. A worker that still runs is killed with its group first: its
// output pipe died with its controller, so nothing it does from now on
// can be recorded, and a second worker must not start beside it.
func (c *Controller) awaitGone(pid int, taskID string, within time.Duration) bool {
	if pid <= 0 || !c.isOurWorker(pid, taskID) {
		return true
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH) || !c.isOurWorker(pid, taskID)
	}
	defer unix.Close(fd)
	// The pidfd pins the process: asked again, the answer is about it.
	if !c.isOurWorker(pid, taskID) {
		return true
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	deadline := time.Now().Add(within)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return !c.isOurWorker(pid, taskID)
		case n > 0:
			return true
		}
	}
}

// readBackOnHub has the step's next relay read back u's attempt from the
// hub (see run.readBack) when its lane runs on agent hosts: the relay's
// logs here lack the end, the hub's records of its dispatch do not.
func (c *Controller) readBackOnHub(r *run, laneCfg config.Lane, u *unendedStep) {
	if !laneCfg.OnHub() {
		return
	}
	c.do(func(*loopState) { r.readBack = u.Attempt })
}
