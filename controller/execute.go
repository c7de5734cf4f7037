package controller

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/workflow"
)

// newRun builds the run of an instruction. Called on the state loop.
func (c *Controller) newRun(in instruction) *run {
	return &run{in: in, pipeline: newRun(in, c.workflow, c.generation), done: make(chan struct{}),
		obs: make(chan observations, obsBuffer)}
}

// adopt makes r the run the pipeline shows. Called on the state loop.
func (c *Controller) adopt(st *loopState, r *run) {
	st.order = append(st.order, r)
	st.current = r
}

// start runs r in a goroutine of its own, unless the controller is
// shutting down (the next controller resumes it then). It reports
// whether it did.
func (c *Controller) start(r *run) bool {
	started := false
	c.do(func(st *loopState) {
		if st.stopping {
			return
		}
		ctx, cancel := context.WithCancel(c.runCtx)
		r.cancel = cancel
		if r.cancelled {
			// Cancelled while it waited as data (see startQueued).
			cancel()
		}
		c.runs.Add(1)
		go func() {
			defer c.runs.Done()
			defer cancel()
			c.execute(ctx, r)
		}()
		started = true
	})
	return started
}

// execute drives r's workflow to its end.
func (c *Controller) execute(ctx context.Context, r *run) {
	defer close(r.done)
	defer c.dropGate(r)
	defer c.settleLogs(r) // an interrupted run's last logs
	// No write here: the attempt writes the pipeline as soon as it knows
	// whether the step waits for its lane or starts.
	c.beginRound(ctx, r) // a /reject of its pull request: prround.go
	c.runFlow(ctx, r)
}

// runStep has one step of the workflow done on lane: attempts, with
// restarts by the restart policy, until the step is finished or cannot
// be. The step's worker is told inv's instruction.
func (c *Controller) runStep(ctx context.Context, r *run, inv workflow.Invocation, lane string) (workflow.Output, error) {
	step := inv.StepID
	c.do(func(*loopState) {
		ensureStep(&r.pipeline, loopStepOr(c.workflow, inv, lane))
		r.instruction, r.observe, r.iteration, r.role = inv.Instruction, inv.Observe, inv.Iteration, inv.Role
	})
	for {
		var pending bool
		c.do(func(*loopState) {
			pending = reviewPending(&r.pipeline, step)
		})
		out, reason := outcomeReview, ""
		if !pending {
			if c.overBudget(r, step, lane) {
				return workflow.Output{}, &stepError{out: outcomeBlocked, reason: ReasonBudgetExceeded}
			}
			out, reason = c.attempt(ctx, r, step, lane)
		}
		if out == outcomeReview {
			out, reason = c.awaitReview(ctx, r, step, step)
		}
		switch out {
		case outcomeRestart:
			if ok, blocked := c.backoff(ctx, r, step, reason); !ok {
				if blocked {
					return workflow.Output{}, &stepError{out: outcomeBlocked, reason: heal.ReasonRestartLimit}
				}
				return workflow.Output{}, &stepError{out: outcomeInterrupted}
			}
		case outcomeDone:
			var facts compact.Facts
			var instruction string
			var output workflow.Output
			var hookCtx context.Context
			c.do(func(*loopState) {
				facts, instruction, output = compact.PipelineFacts(r.pipeline), c.stepInstruction(r, step), r.output
				hookCtx = c.stepContext(ctx, r, step, r.tree)
				r.attempt, r.tree = 0, nil
			})
			c.postAccept(hookCtx, facts, step, lane, instruction)
			return output, nil
		default:
			return workflow.Output{}, &stepError{out: out, reason: reason}
		}
	}
}

// loopStepOr is the template of inv's step: the configured one, or a
// loop's step made up as the loop goes.
func loopStepOr(wf []stepTemplate, inv workflow.Invocation, lane string) stepTemplate {
	for _, t := range wf {
		if t.ID == inv.StepID {
			return t
		}
	}
	t := loopStep(inv.Iteration, inv.Role, lane)
	t.ID = inv.StepID
	return t
}

// backoff waits before restarting a step. It reports whether to go on,
// and, when not, whether the restart budget is spent (the run is then
// blocked) rather than the controller stopping.
func (c *Controller) backoff(ctx context.Context, r *run, step, reason string) (ok, blocked bool) {
	var delay time.Duration
	var count int
	c.do(func(*loopState) {
		delay, ok = r.restarts.Next(c.restartPolicy(), c.now(), nil)
		count = r.restarts.Count()
	})
	if !ok {
		return false, true
	}
	c.note(c.events.system(r.pipeline.TaskID, r.pipeline.RunID, step, ledger.SeverityWarn, opRunState,
		"from", stateFailed, "to", "restart_scheduled", "reason_code", reason,
		"restart", count, "delay_ms", delay.Milliseconds()))
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, false
	case <-t.C:
		return true, false
	}
}

// attempt runs one worker on step: wait for a lane slot, start the worker,
// stream its output, and judge how it ended.
func (c *Controller) attempt(ctx context.Context, r *run, step, lane string) (outcome, string) {
	laneCfg, _ := c.cfg.Lane(lane)
	gate, waited := c.takeGate(r, step, lane)
	if !waited {
		c.do(func(*loopState) {
			r.life = c.newLifecycle(r, step) // every attempt is a run of its own
			r.queueRecorded = false
		})
		c.transition(r, stateWaiting, "")
	}
	var release func()
	var err error
	if gate != nil {
		release, err = c.acquireGated(ctx, gate)
	} else {
		release, err = c.slots.acquire(ctx, lane, func(position int) { c.queued(r, step, lane, position) })
	}
	if err != nil {
		var reason string
		c.do(func(*loopState) {
			reason = ReasonCancelled
			if r.abandoned {
				reason = ReasonAbandoned
			}
		})
		return c.stopped(r, reason)
	}
	defer release()
	c.do(func(*loopState) {
		r.quiet = false
	})
	c.transition(r, stateRequesting, "")
	tree, err := c.treeFor(ctx, r, step, laneCfg)
	if err != nil {
		if ctx.Err() != nil {
			return c.stopped(r, ReasonCancelled)
		}
		reason := worktreeReason(err)
		c.log.Error("prepare worktree", "step", step, "err", err)
		c.stepFailed(r, step, lane, reason, ledger.ObjectOf("error", firstLine(err.Error())))
		c.transition(r, stateFailed, reason)
		return outcomeFailed, reason
	}
	if out, reason, ok := c.finishFromLog(r, step, lane, laneCfg, tree); ok {
		return out, reason // the worker a dead controller left had finished
	}
	var facts compact.Facts
	var instruction string
	c.do(func(*loopState) {
		facts, instruction = compact.PipelineFacts(r.pipeline), c.stepInstruction(r, step)
		// Every process started for the step (its hooks, its agent) carries
		// the step's environment and marker.
		ctx = c.stepContext(ctx, r, step, tree)
	})
	instruction = c.preDispatch(ctx, facts, step, lane, instruction)
	var spec worker.Spec
	var remote steps.Step
	var resume resumeChoice
	c.do(func(*loopState) {
		r.attempt = r.nextAttempt(step)
		r.texts, r.output = r.texts[:0], workflow.Output{}
		r.tree = tree
		spec, resume, err = c.workerSpec(r, step, laneCfg, instruction)
		if err == nil && laneCfg.OnHub() {
			spec, remote = c.hubSpec(r, step, laneCfg, spec) // an agent host runs it (hubstep.go)
		}
		r.dir = spec.Dir
	})
	c.resetLiveness(r)
	var proc *worker.Process
	if err == nil {
		c.recordResume(r, step, lane, resume)
		if laneCfg.OnHub() {
			// When the relay starts: the dispatch's clock (hub/steps).
			spawnAt := time.Now().UnixNano()
			spec.Env = append(spec.Env, steps.EnvSpawnAt+"="+strconv.FormatInt(spawnAt, 10))
			c.offerAhead(ctx, remote, spawnAt)
		}
		proc, err = worker.Start(ctx, spec)
	}
	if err != nil {
		if ctx.Err() != nil {
			return c.stopped(r, ReasonCancelled)
		}
		c.log.Error("start worker", "step", step, "err", err)
		c.stepFailed(r, step, lane, ReasonSpawnFailed, ledger.ObjectOf("error", err.Error()))
		c.transition(r, stateFailed, ReasonSpawnFailed)
		return outcomeFailed, ReasonSpawnFailed
	}
	defer proc.Discard()
	c.started(r, step, lane, proc, spec)
	c.transition(r, stateGenerating, "")
	c.consume(r, step, lane, proc)
	res := proc.Wait()
	c.transition(r, statePersisting, "")
	if r.hung {
		c.takeOver(r, step, vocab.ReasonHeartbeatStale)
		if laneCfg.OnHub() {
			// What went silent is the relay, not necessarily the step:
			// one that ran to its end on its agent host (its relay stuck
			// after it) is read back from the hub by the next attempt's
			// relay, not run again; one the stop ended runs again.
			c.do(func(*loopState) { r.readBack = r.attempt })
		}
	} else {
		c.released(r)
	}
	// r.proc is cleared: what the loop saw of the attempt is all here.
	c.settleObservations(r)
	// The logs sync while the run goes on, as the step's end does (see
	// judge); the next STEP_STARTED or RUN_FINISHED waits for them.
	r.syncing = proc
	return c.judge(r, step, lane, res)
}

// settleLogs waits until the artifact logs of r's last worker are on
// disk: before the next record that a crash must not find without them.
// A power cut before they are leaves a log shorter than its
// STEP_COMPLETED says (stdout_log_bytes, stderr_log_bytes), which a
// reader can tell. Called by r's goroutine.
func (c *Controller) settleLogs(r *run) {
	if r.syncing == nil {
		return
	}
	if err := r.syncing.LogsDurable(); err != nil {
		c.log.Error("sync a step's logs", "task_id", r.pipeline.TaskID, "err", err)
	}
	r.syncing = nil
}

// stopped ends an attempt that never got a worker: shut down, or cancelled
// while waiting.
func (c *Controller) stopped(r *run, reason string) (outcome, string) {
	var stopping, cancelled bool
	var state string
	c.do(func(st *loopState) {
		stopping, cancelled = st.stopping, r.cancelled
		state, _ = r.runState()
	})
	if stopping && !cancelled {
		return outcomeInterrupted, ""
	}
	if !isTerminal(state) {
		// A change waiting for review has a completed attempt: the
		// run's RUN_FINISHED says it was cancelled.
		c.transition(r, stateCancelled, reason)
	}
	return outcomeCancelled, reason
}

// stepInstruction is what step hands its worker before hooks: the
// person's instruction through the step's template. Called on the state loop.
func (c *Controller) stepInstruction(r *run, step string) string {
	instruction := r.in.Text
	if r.instruction != "" {
		instruction = r.instruction
	}
	if c.cfg.Workflow.Flow() == config.FlowSequential {
		for _, s := range c.cfg.Workflow.Steps {
			if s.ID == step {
				instruction = s.Text(r.in.Text)
			}
		}
	}
	// A rejected change's reason goes to the step's next attempt.
	if why := r.pipeline.RoleLifecycle.Get(keyRejected + step); why != "" && why != "-" {
		instruction += "\n\n" + c.loc.T("controller.review.rejected_note", "Reason", why)
	}
	// What the person added to the task since it started (followup.go).
	return instruction + c.followUpNote(&r.pipeline)
}

// workerSpec builds how to run the step's worker on instruction: in the
// step's worktree when it has one, and with the lane's resume_command
// when a session handle of this very step and folder is recorded. Ids
// that cannot be a folder name (a ledger copied from elsewhere may hold
// any) fail the step instead of becoming a path. Called on the state loop.
func (c *Controller) workerSpec(r *run, step string, lane config.Lane, instruction string) (worker.Spec, resumeChoice, error) {
	p := &r.pipeline
	artifacts, err := ledger.Layout{Root: c.opts.Root}.ArtifactDir(p.TaskID, p.RunID, step)
	if err != nil {
		return worker.Spec{}, resumeChoice{}, err
	}
	vars := config.Vars{Instruction: instruction, Daokit: c.opts.Self, Lang: c.opts.Lang, Root: c.opts.Root,
		TaskID: p.TaskID, RunID: p.RunID, StepID: step}
	kind := string(lane.Kind)
	if kind == "" {
		kind = string(config.KindSim)
	}
	dir := lane.WorkDir(c.opts.Root)
	env := []string{"DAOKIT_ROOT=" + c.opts.Root, "DAOKIT_TASK_ID=" + p.TaskID, "DAOKIT_RUN_ID=" + p.RunID, "DAOKIT_STEP_ID=" + step}
	if r.tree != nil {
		dir = r.tree.dir
		env = append(env, worker.EnvWorktree+"="+r.tree.wt.Path)
	}
	argv := lane.Argv(vars)
	choice := chooseResume(p, lane, step, dir)
	if choice.handle != "" {
		vars.Session = choice.handle
		argv = lane.ResumeArgv(vars)
	}
	argv = agentArgv(lane, argv, dir)
	return worker.Spec{
		Argv: argv,
		Dir:  dir,
		// The controller may hold a GitHub token (it opens pull requests);
		// agents never get it (only a lane's own env can hand it on).
		BaseEnv:      outbox.WithoutSecrets(os.Environ()),
		Env:          append(append(env, "DAOKIT_ROLE="+string(r.role), "DAOKIT_ITERATION="+strconv.Itoa(r.iteration)), lane.Env...),
		Stdin:        instruction,
		UseStdin:     lane.Stdin,
		Kind:         kind,
		ArtifactDir:  artifacts,
		ArtifactRoot: c.opts.Root,
		LogLimit:     logLimitOf(lane),
		Timeout:      lane.Timeout.Std(),
		StopGrace:    lane.StopGrace.Std(),
	}, choice, nil
}

// logLimitOf is the lane's cap on each artifact log, or the default.
func logLimitOf(lane config.Lane) int64 {
	if lane.LogLimit > 0 {
		return lane.LogLimit
	}
	return worker.DefaultLogLimit
}

// queued records that the step waits behind others on its lane.
// Only the place it entered at is recorded: with a thousand runs waiting,
// recording every move would write a million events.
func (c *Controller) queued(r *run, step, lane string, position int) {
	var first bool
	c.do(func(*loopState) {
		markQueued(&r.pipeline, step, lane)
		first = !r.queueRecorded && !r.quiet
		r.queueRecorded = true
	})
	if first {
		c.note(c.events.system(r.pipeline.TaskID, r.pipeline.RunID, step, ledger.SeverityInfo, opRunState,
			"from", stateWaiting, "to", stateWaiting, "lane", lane, "queue_position", position))
		// The person who sent it sees why nothing happens yet.
		c.say(r.pipeline.TaskID, r.pipeline.RunID, step, "controller.queue.position", "Lane", lane, "Position", strconv.Itoa(position))
	}
	c.persist(r)
}

// started records a worker that runs: its leases, STEP_STARTED, and the
// route. The lease (with the worker's pid) is written before anything
// can depend on it.
func (c *Controller) started(r *run, step, lane string, proc *worker.Process, spec worker.Spec) {
	var p *ledger.PipelineState
	var attempt int
	var taskID, runID string
	c.do(func(st *loopState) {
		r.proc, r.workerRan = proc, true
		c.releaseSuccessors(st, r)
		p = &r.pipeline
		c.takeLeases(st, r, step, lane, proc.PID())
		markDispatched(p, step, lane)
		c.writeLeases(st)
		attempt, taskID, runID = r.attempt, p.TaskID, p.RunID
	})
	c.flush(docLeases) // the worker's pid is in the lease before anything else
	c.settleLogs(r)
	from := proc.LogOffsets()
	// Where the attempt's output starts in its logs: a successor that
	// finds the worker gone reads its end back from there (see
	// finishFromLog).
	c.record(c.events.typed(taskID, runID, step, ledger.EventStepStarted, ledger.SeverityInfo,
		"lane", lane, "pid", proc.PID(), "attempt", attempt, "command", spec.Argv,
		"artifacts", spec.ArtifactDir, "stdout_log_offset", from.Stdout, "stderr_log_offset", from.Stderr))
	// For people: recovery finds the step from the lease and the log.
	c.persistSoon(r)
}

// takeLeases registers the attempt's two leases: the worker's (with
// its pid) and the controller's on the step. Called on the state loop.
func (c *Controller) takeLeases(st *loopState, r *run, step, lane string, pid int) {
	ttl, now, p := c.leaseTTL(), c.now(), &r.pipeline
	wl, err := heal.Hold(&st.leases, heal.LeaseSpec{Lane: lane, TaskID: p.TaskID, RunID: p.RunID, StepID: step,
		Holder: heal.Holder{ThreadID: "worker-" + lane + "-" + strconv.Itoa(r.attempt), PID: pid}, TTL: ttl}, now)
	if err != nil {
		c.log.Error("register the worker's lease", "task_id", p.TaskID, "step", step, "err", err)
	}
	cl, err := heal.Hold(&st.leases, heal.LeaseSpec{Lane: heal.ControllerLane, TaskID: p.TaskID, RunID: p.RunID, StepID: step,
		Holder: heal.Holder{ThreadID: "controller-" + strconv.Itoa(c.generation), PID: c.pid}, TTL: ttl}, now)
	if err != nil {
		c.log.Error("register the controller's lease", "task_id", p.TaskID, "step", step, "err", err)
	}
	r.lease, r.ctlLease = wl, cl
	if cl != nil {
		c.syncLifecycle(st, r, cl.Token())
	}
	c.writeLeases(st)
}

// syncLifecycle mirrors the lease with token into r's
// role_lifecycle. Called on the state loop.
func (c *Controller) syncLifecycle(st *loopState, r *run, token string) {
	for i := len(st.leases.Leases) - 1; i >= 0; i-- {
		if l := st.leases.Leases[i]; l.LeaseToken == token {
			heal.SyncLifecycle(&r.pipeline, l)
			return
		}
	}
}

// released ends the attempt's leases, and prunes the register's oldest
// finished leases so that it stays small however many runs end. The
// register is written soon, not waited for: a lease left active on disk
// by a crash names a worker that is gone, and the successor's fencing
// finds that out (see fenceOrphans).
func (c *Controller) released(r *run) {
	c.do(func(st *loopState) {
		c.releaseLeases(st, r)
		r.proc = nil
	})
	c.writeSoon()
}

func (c *Controller) releaseLeases(st *loopState, r *run) {
	now := c.now()
	for _, h := range []*heal.Held{r.lease, r.ctlLease} {
		if h == nil {
			continue
		}
		if err := h.Release(&st.leases, now); err == nil && h == r.ctlLease {
			c.syncLifecycle(st, r, h.Token())
		}
	}
	r.lease, r.ctlLease = nil, nil
	c.pruneLeases(st)
	c.writeLeases(st)
}

// judge turns a worker's end into the attempt's outcome and records it.
func (c *Controller) judge(r *run, step, lane string, res worker.Result) (outcome, string) {
	var stopping, cancelled bool
	var attempt int
	c.do(func(st *loopState) {
		stopping, cancelled, attempt = st.stopping, r.cancelled, r.attempt
	})
	hung := r.hung
	p := &r.pipeline
	// process_us is the worker process's own wall time (fork to exit, as
	// time(1) measures it): what the loop benchmark counts as the agents'
	// time.
	detail := ledger.ObjectOf("exit_code", res.ExitCode, "signal", res.SignalName(), "duration_ms", res.Duration().Milliseconds(),
		"process_us", res.ProcessTime().Microseconds(), "lines", res.Stats.Lines(), "attempt", attempt)
	if res.FromLog {
		// Read back by a successor (see finishFromLog): its exit status
		// and times died with the controller that ran it.
		detail = ledger.ObjectOf("from_log", true, "pid", res.PID, "lines", res.Stats.Lines(), "attempt", attempt)
	}
	if res.Summary.SessionID != "" {
		detail = detail.With("session_id", res.Summary.SessionID)
	}
	if res.Stats.StdoutLogBytes > 0 || res.Stats.StderrLogBytes > 0 {
		// The logs sync in the background (see settleLogs).
		detail = detail.With("stdout_log_bytes", res.Stats.StdoutLogBytes).With("stderr_log_bytes", res.Stats.StderrLogBytes)
	}
	if cut := res.Stats.LogCutBytes; cut > 0 {
		// The artifact logs kept their newest bytes only (lane log_limit).
		detail = detail.With("log_cut_bytes", cut)
	}
	if err := res.ArtifactErr; err != nil {
		// The logs are for people: the step's outcome stands, and its end
		// says that its logs lack part of what the worker printed.
		c.log.Warn("write a step's artifact logs", "task_id", p.TaskID, "step", step, "err", err)
		detail = detail.With("artifact_error", firstLine(err.Error()))
	}
	c.agentEnded(r, step, res.Summary)
	detail = agentDetail(detail, res.Summary)
	// An agent CLI always ends with its result: one that exits 0 without
	// it broke its stream (WORKER_OUTPUT_INVALID, restarted).
	laneCfg, _ := c.cfg.Lane(lane)
	requireResult := requiresResult(string(laneCfg.Kind))
	noResult := requireResult && res.Summary.Result == nil
	switch {
	case stopping && !cancelled:
		// Not a verdict on the work: the next controller resumes it.
		c.transition(r, stateCancelled, ReasonInterrupted)
		return outcomeInterrupted, ""
	case res.Success() && !hung && !workerSaidFailed(res) && agentReason(res.Summary) == "" && !noResult:
		// What a refused outcome's STEP_FAILED says: the end without the
		// step's output, which is what the ledger may have refused.
		bare := detail
		var out workflow.Output
		var role workflow.Role
		c.do(func(*loopState) {
			r.output = outputOf(r.texts, res)
			out, role = r.output, r.role
		})
		if record, _, err := c.rememberStep(r, step, role, workflow.Record{Output: out}); err != nil {
			c.log.Error("record step output", "step", step, "err", err)
		} else {
			// What the step said, for a restart (see indexEntry.Records).
			detail = detail.With("record", record)
		}
		if res.Summary.Result != nil {
			detail = detail.With("summary", res.Summary.Result.Text)
		}
		completed := ledger.NewEvent(c.now(), p.TaskID, p.RunID, step, ledger.EventStepCompleted, ledger.SeverityInfo, detail)
		var isolated bool
		c.do(func(*loopState) {
			// A run that shares one worktree is reviewed after its judge.
			isolated = r.tree != nil && c.cfg.Workflow.Flow() == config.FlowSequential
		})
		if isolated {
			// The person decides (see awaitReview); nothing is accepted yet.
			if err := c.journal.append(completed); err != nil {
				return c.outcomeRefused(r, step, lane, bare, err)
			}
			c.transition(r, stateCompleted, "")
			return outcomeReview, ""
		}
		// One write for both: the step's end and its acceptance.
		code, criterion := stepCriterion(res)
		if err := c.journal.appendWritten(completed, c.events.typed(p.TaskID, p.RunID, step, ledger.EventAcceptancePassed, ledger.SeverityInfo,
			"criteria", []string{criterion}, "criterion", code)); err != nil {
			return c.outcomeRefused(r, step, lane, bare, err)
		}
		c.transition(r, stateCompleted, "")
		return outcomeDone, ""
	}
	reason := classify(Failure{Result: res, Cancelled: cancelled, Hung: hung, ResultFailed: workerSaidFailed(res), RequireResult: requireResult})
	c.stepFailed(r, step, lane, reason, detail)
	switch reason {
	case ReasonCancelled:
		c.transition(r, stateCancelled, reason)
		return outcomeCancelled, reason
	case ReasonTimeout:
		c.transition(r, stateTimedOut, reason)
		return outcomeFailed, reason
	}
	c.transition(r, stateFailed, reason)
	if restartable(reason) {
		return outcomeRestart, reason
	}
	return outcomeFailed, reason
}

// outcomeRefused ends a step whose worker succeeded but whose outcome
// the ledger refused to write (a write or fdatasync error other than a
// full disk, whose writes are held instead; an event line past
// ledger.MaxLineBytes):
// the step fails with LEDGER_WRITE_FAILED rather than counting as done
// with nothing on record, which a successor would run again while the
// window said it was done. It is not restarted: the same output would be
// refused again. Run goroutine only.
func (c *Controller) outcomeRefused(r *run, step, lane string, detail ledger.Object, err error) (outcome, string) {
	c.log.Error("record a step's outcome", "step", step, "err", err)
	c.stepFailed(r, step, lane, ReasonLedgerWrite, detail.With("ledger_error", firstLine(err.Error())))
	c.transition(r, stateFailed, ReasonLedgerWrite)
	return outcomeFailed, ReasonLedgerWrite
}

// workerSaidFailed reports a worker that exited 0 but whose final result
// said the work failed (agent CLIs do this).
func workerSaidFailed(res worker.Result) bool {
	return res.Summary.Result != nil && res.Summary.Result.Failed
}

func (c *Controller) stepFailed(r *run, step, lane, reason string, detail ledger.Object) {
	p := &r.pipeline
	payload := append(ledger.ObjectOf("reason_code", reason, "lane", lane), detail...)
	c.record(ledger.NewEvent(c.now(), p.TaskID, p.RunID, step, ledger.EventStepFailed, ledger.SeverityError, payload))
}

// finish ends a run with a pipeline status and records RUN_FINISHED, the
// marker recovery looks for; extra (key, value pairs) goes into its
// payload.
func (c *Controller) finish(r *run, status, reason string, extra ...any) {
	var p *ledger.PipelineState
	c.do(func(st *loopState) {
		p = &r.pipeline
		switch status {
		case ledger.StatusDone:
			markRunDone(p)
		case ledger.StatusFailed:
			markStepFailed(p, p.CurrentStep, reason, false)
		case ledger.StatusBlocked:
			markStepFailed(p, p.CurrentStep, reason, true)
		}
		r.final, r.endReason = status, reason
		if len(r.successors) > 0 {
			c.releaseSuccessors(st, r)
			c.writeLeases(st)
		}
	})
	// The pipeline first: a crash between the two leaves a finished
	// pipeline without its marker, which recovery completes (see resume),
	// rather than a marker whose pipeline still says the run is going.
	// The leases too: the document writer may still hold the release of
	// the last worker's, and whoever reads the marker finds them released.
	c.touch(r)
	c.flushDocs()
	c.settleLogs(r)
	c.recordFinished(r, status, reason, extra...)
	c.do(func(st *loopState) {
		c.writeHeartbeat(st, c.focus(st), c.now(), c.thresholds())
	})
	c.flushDocs()
	route := p.Route()
	c.notify(relay.Notice{Kind: relay.NoticeRoute, Route: &route})
}

func (c *Controller) recordFinished(r *run, status, reason string, extra ...any) {
	severity := ledger.SeverityInfo
	if status != ledger.StatusDone {
		severity = ledger.SeverityError
	}
	p := r.pipeline
	kv := append([]any{"status", status, "reason_code", reason, "message_id", r.in.MessageID}, extra...)
	c.record(c.events.system(p.TaskID, p.RunID, p.CurrentStep, severity, opRunFinished, kv...))
}

// abandon drops r while it waits for its lane slot, at a person's
// request: it ends FAILED with RUN_ABANDONED and its worker never starts.
func (c *Controller) abandon(r *run) {
	c.do(func(*loopState) {
		r.abandoned = true
	})
	c.cancel(r)
}

// cancel stops r's worker (or its wait for a slot) at a person's request.
func (c *Controller) cancel(r *run) {
	var cancel context.CancelFunc
	c.do(func(*loopState) {
		r.cancelled = true
		cancel = r.cancel
	})
	if cancel != nil {
		cancel()
	}
	if t := c.slots.withdraw(r); t != nil {
		// It waited as data: its goroutine starts to end it.
		c.startQueued(t, false)
	}
}

// retry starts a failed or blocked run again from its current step.
func (c *Controller) retry(r *run) {
	<-r.done
	c.extendBudget(r)
	var step string
	c.do(func(st *loopState) {
		step = r.pipeline.CurrentStep
		reopenLoop(&r.pipeline, c.cfg.Workflow.MaxIterations)
		markRetry(&r.pipeline, step, LaneOfStep(&r.pipeline, step))
		r.final, r.endReason, r.cancelled, r.attempt, r.tree, r.inFolder = "", "", false, 0, nil, nil
		r.restarts = heal.Restarts{}
		r.done = make(chan struct{})
		st.current = r
	})
	c.start(r)
}
