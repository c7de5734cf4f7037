package controller

import (
	"errors"
	"strconv"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// takeoverStopWait bounds how long a forwarded takeover waits for the
// worker it stopped to be gone before it answers: its stop grace, then
// SIGKILL, is normally a matter of a second; a process stuck in the
// kernel is still being waited for by its run, which resumes the step
// only once it is gone.
const takeoverStopWait = 30 * time.Second

// operateTakeoverLive is `daokit takeover` of r, a run this controller
// is running right now, carried out rather than refused. The takeover
// is planned by heal.PlanTakeover on r's own pipeline and the register
// (the leases become TAKEN_OVER, the fencing generation of each step
// whose lease was adopted rises, the successor's leases are held for it
// until the step's next worker starts) and recorded as finishTakeover
// records every takeover (the handoff package written and applied,
// LEASE_TAKEOVER and the rest). Then the step's worker tree is stopped
// as taken over (as the replay signal stops it for another writer's
// takeover, see takeoverSeen), and the answer waits until that worker
// is gone. The run itself resumes the step (the stop is restartable,
// see classify): its next attempt reads back the result of a worker
// that had finished its work when it was stopped (finishFromLog)
// instead of running it again. A run between attempts (waiting for its
// lane, a restart or a review) has no worker to stop: the takeover is
// recorded as on an idle root and the run goes on.
func (c *Controller) operateTakeoverLive(r *run, op relay.Operation) relay.Outcome {
	const code = "E_TAKEOVER_FAILED"
	var step string
	var t heal.Takeover
	var err error
	var proc *worker.Process
	c.do(func(st *loopState) {
		now := c.now()
		step = r.pipeline.CurrentStep
		t, err = heal.PlanTakeover(&r.pipeline, &st.leases, heal.TakeoverSpec{
			TaskID: op.TaskID, RunID: op.RunID, Reason: vocab.ReasonManualTakeover,
			Successor: heal.Holder{ThreadID: op.SuccessorThreadID, PID: op.SuccessorPID},
			TTL:       time.Duration(op.LeaseTTL) * time.Second,
		}, now)
		if err != nil {
			return
		}
		// The run's leases are the successor's now: not renewed, not
		// released by the attempt (see takeover). The successor's are
		// held until the step's next worker starts (see started), as after
		// the controller's own takeovers; those the takeover superseded go.
		r.lease, r.ctlLease, r.successors = nil, nil, nil
		for _, l := range t.Adopted {
			r.successors = append(r.successors, heal.Adopt(l, c.leaseTTL(), now))
		}
		proc = r.proc
		r.proc = nil // the loop judges it no more: its end is the takeover's
		c.writeLeases(st)
	})
	if err != nil {
		return takeoverFailure(code, err)
	}
	// Recorded before the worker is stopped, so that the log tells the
	// takeover first and then the end of the attempt it ended.
	c.finishTakeover(r.pipelineOf, &t)
	c.persist(r)
	if proc == nil {
		return c.printed(code, t.Object())
	}
	c.do(func(*loopState) {
		// On the state loop, where the run's next attempt reads r.unended: set
		// only when this stop is what ends the worker, not an exit of its
		// own that came first (its run then judges that exit).
		r.unended = stoppedWorker(proc, step, LaneOfStep(&r.pipeline, step), r.attempt)
		proc.Stop(transcript.StopTakenOver)
		if proc.StopCause() != transcript.StopTakenOver {
			r.unended = nil
		}
	})
	c.log.Warn("a person took over the step this controller runs; its worker is stopped and the step resumes",
		"task_id", op.TaskID, "run_id", op.RunID, "step", step, "pid", proc.PID())
	select {
	case <-proc.Done():
	case <-time.After(takeoverStopWait):
		c.log.Warn("the worker stopped for a takeover is not gone yet; its run waits for it", "pid", proc.PID())
	}
	return c.printed(code, t.Object())
}

// operateHandoffApplyLive is `daokit handoff --apply` of a package of
// r, a run this controller is running right now. Applying a package
// sets the step the run resumes from and the handoff's notes
// (heal.ApplyHandoff); when that step is the one the run is on, the
// run already does what the package says, and the package is applied
// to its pipeline on the state loop, with nothing stopped. A package that
// would move the run to another step contradicts what the run does
// next and is refused (cli.forward.error.running); the run is taken
// over or cancelled first.
func (c *Controller) operateHandoffApplyLive(r *run, pkg ledger.HandoffPackage, op relay.Operation) relay.Outcome {
	const code = "E_HANDOFF_FAILED"
	var plan heal.ResumePlan
	var err error
	moved := false
	c.do(func(*loopState) {
		p := clonePipeline(r.pipeline)
		if plan, err = heal.ApplyHandoff(&p, pkg, op.IncludeAccepted, c.now()); err != nil {
			return
		}
		if moved = plan.ResumeStepID != r.pipeline.CurrentStep; !moved {
			r.pipeline = p
		}
	})
	if err != nil {
		return applyFailure(code, err)
	}
	if moved {
		return failure(code, "cli.forward.error.running", "PID", strconv.Itoa(c.pid), "Task", pkg.TaskID, "Run", pkg.RunID)
	}
	c.persist(r)
	plan.PackagePath = op.PackagePath
	return c.printed(code, plan.Object())
}

// applyFailure is a package heal.ApplyHandoff refused, as the local
// command words it.
func applyFailure(code string, err error) relay.Outcome {
	var mismatch *heal.MismatchError
	if errors.As(err, &mismatch) {
		return failure(code, "cli.handoff.error.mismatch", "Field", mismatch.Field, "Ledger", mismatch.Ledger, "Package", mismatch.Handed)
	}
	return relay.Outcome{Failure: &relay.Failure{Code: code, Detail: err.Error()}}
}

// stoppedWorker is proc, the worker of step's attempt, as finishFromLog
// reads a worker's end back: where its output starts in the logs.
func stoppedWorker(proc *worker.Process, step, lane string, attempt int) *unendedStep {
	from := proc.LogOffsets()
	return &unendedStep{Step: step, Lane: lane, PID: proc.PID(), Attempt: attempt, StdoutFrom: from.Stdout, StderrFrom: from.Stderr}
}

// runEnded reports whether r's goroutine has ended (r.done closed).
func runEnded(r *run) bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// takeoverFailure is a takeover heal.PlanTakeover refused, as the local
// command words it.
func takeoverFailure(code string, err error) relay.Outcome {
	var le *heal.LeaseError
	if errors.As(err, &le) {
		return failure(code, "cli.takeover.error.bad_field", "Field", le.Field)
	}
	return relay.Outcome{Failure: &relay.Failure{Code: code, Detail: err.Error()}}
}
