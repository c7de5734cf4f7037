package controller

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strconv"
	"syscall"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// found is an open instruction the index gave back at start.
type found struct {
	in    instruction
	route ledger.Route
	// started: a worker ran for it before; its resumption is recorded.
	started bool
	// completed are the steps the log says finished: never run again.
	completed []string
	// records and doneThrough are what the log says they said (see
	// indexEntry.Records).
	records     map[string]json.RawMessage
	doneThrough int
	// unended is the worker whose end the log lacks (see indexEntry).
	unended *unendedStep
	// attempts are the last attempt numbers of its steps on record.
	attempts map[string]int
	// review is the change the log says waits for review, if any.
	review *reviewMark
	// followUps are the task's follow-ups the log holds.
	followUps []string
	// tree is the worktree the run last readied, and unreviewed says
	// that its step completed without being put to the person.
	tree       *reviewMark
	unreviewed bool
}

// recover fences off workers a dead controller left behind and returns
// the instructions that were acknowledged but never finished, oldest
// first. The instruction index knows them without reading the history.
func (c *Controller) recover() []found {
	open := c.index.openEntries()
	readBack := map[[2]string][]string{}
	for _, en := range open {
		if en.Unended != nil {
			key := [2]string{en.Route.TaskID, en.Route.RunID}
			readBack[key] = append(readBack[key], en.Unended.Step)
		}
	}
	// The register's active leases first, then their workers killed
	// outside the state loop (a read of /proc and a signal each), then
	// the takeovers planned on the loop. Nothing else asks the loop yet:
	// the relay does not serve before recovery.
	var orphans []ledger.Lease
	c.do(func(st *loopState) { orphans = c.orphanLeases(st) })
	c.killOrphans(orphans)
	var takeovers []heal.Takeover
	c.do(func(st *loopState) {
		takeovers = c.fenceOrphans(st, orphans, readBack)
	})
	// Recorded outside the state loop: no fsync in a request.
	for _, t := range takeovers {
		c.finishTakeover(func(st *loopState) *ledger.PipelineState { return &st.pipeline }, &t)
	}
	out := make([]found, 0, len(open))
	for _, en := range open {
		out = append(out, found{in: en.instruction(), route: en.Route, started: en.Started, completed: en.Completed,
			records: en.Records, doneThrough: en.DoneThrough, unended: en.Unended, attempts: en.Attempts, review: en.Review,
			tree: en.Tree, unreviewed: en.Unreviewed, followUps: en.FollowUps})
	}
	return out
}

func routeFrom(payload ledger.Object) ledger.Route {
	var r ledger.Route
	if raw, ok := payload.Get("route"); ok {
		_ = json.Unmarshal(raw, &r)
	}
	return r
}

// resumed is a run rebuilt at start and what to do with it once the
// controller serves.
type resumed struct {
	r *run
	// ended: the run had ended but its marker was never written.
	ended bool
	// announce: a worker ran for it before; record that it resumes.
	announce bool
}

// adoptUnfinished rebuilds the runs of the unfinished instructions, in
// memory only, so that the first window to connect sees all of them. A
// run the pipeline file still shows keeps its progress (finished steps
// stay finished).
func (c *Controller) adoptUnfinished(list []found) []resumed {
	out := make([]resumed, 0, len(list))
	c.do(func(st *loopState) {
		for _, f := range list {
			out = append(out, c.adoptFound(st, f))
		}
	})
	return out
}

// adoptFound rebuilds the run of one unfinished instruction and adopts
// it.
func (c *Controller) adoptFound(st *loopState, f found) resumed {
	r := c.newRun(f.in)
	r.workerRan = f.started
	res := resumed{r: r, announce: f.started}
	if st.pipeline.TaskID == r.pipeline.TaskID && st.pipeline.RunID == r.pipeline.RunID {
		r.pipeline = st.pipeline
		if final := r.pipeline.Status; isFinal(final) {
			r.final, res.ended = final, true
		} else {
			step := r.pipeline.CurrentStep
			if !reviewPending(&r.pipeline, step) {
				// A change that waits for review stays waiting: its
				// worker finished, and running it again would redo it.
				markRetry(&r.pipeline, step, LaneOfStep(&r.pipeline, step))
			}
			res.announce = true
		}
	}
	for _, step := range f.completed {
		// A step whose change waits for review completed its work,
		// but not its review: it stays waiting (see restoreReview).
		if s := r.pipeline.RoleLifecycle.Get("step:" + step); s != stepCompleted && s != stepReviewPending {
			markStepCompleted(&r.pipeline, step)
		}
	}
	applyRecords(&r.pipeline, f.records, f.doneThrough)
	restoreFollowUps(&r.pipeline, f.followUps)
	restoreTree(&r.pipeline, f.tree)
	restoreReview(&r.pipeline, f.review)
	if f.unreviewed {
		sendToReview(&r.pipeline, f.tree)
	}
	if !isFinal(r.pipeline.Status) && reviewPending(&r.pipeline, r.pipeline.CurrentStep) {
		// The verdict's way in exists before the relay serves: an
		// /accept that started this controller arrives before the
		// resumed run reaches awaitReview, which takes it from here.
		r.review = make(chan verdict, 1)
	}
	r.unended = f.unended
	r.attempts = maps.Clone(f.attempts)
	// A run that only waited for its lane resumes its wait without a
	// word: restarts must not grow the log for work that did not
	// change.
	r.quiet = !res.announce
	c.adopt(st, r)
	return res
}

// resume starts the rebuilt runs again, oldest first.
func (c *Controller) resume(list []resumed) {
	for _, res := range list {
		r := res.r
		switch {
		case res.ended:
			c.recordFinished(r, r.final, r.pipeline.RoleLifecycle.Get("route:last_reason"))
			close(r.done)
			continue
		case res.announce:
			var p ledger.PipelineState
			c.do(func(*loopState) {
				p = r.pipeline
			})
			c.record(c.events.system(p.TaskID, p.RunID, p.CurrentStep, ledger.SeverityWarn, opResumed,
				"message_id", r.in.MessageID, "generation", c.generation, "route", routePayload(p.Route())))
			c.log.Info("resuming instruction", "message_id", r.in.MessageID, "task_id", p.TaskID)
		}
		// A run that only waits for its lane waits as data, as it did
		// before the restart (see startOrQueue).
		c.startOrQueue(r)
	}
}

func isFinal(status string) bool {
	return status == ledger.StatusDone || status == ledger.StatusFailed || status == ledger.StatusBlocked
}

// orphanLeases returns the ACTIVE leases a previous controller
// left (see fenceOrphans). Called on the state loop.
func (c *Controller) orphanLeases(st *loopState) []ledger.Lease {
	var orphans []ledger.Lease
	for _, l := range st.leases.Leases {
		if l.Status == ledger.LeaseActive && l.PID != c.pid {
			orphans = append(orphans, l)
		}
	}
	return orphans
}

// killOrphans kills the workers of this root that still run under the
// orphaned leases (their groups), so that no two workers ever hold one
// step.
func (c *Controller) killOrphans(orphans []ledger.Lease) {
	for _, l := range orphans {
		if l.Lane != heal.ControllerLane && c.isOurWorker(l.PID, l.TaskID) {
			c.log.Warn("killing a worker left by a previous controller", "pid", l.PID, "task_id", l.TaskID, "step", l.StepID)
			_ = syscall.Kill(-l.PID, syscall.SIGKILL)
		}
	}
}

// fenceOrphans takes over every ACTIVE lease a previous controller
// left (orphans, whose workers killOrphans killed), the way every
// takeover is planned (heal.PlanTakeover, as the live succession and
// `daokit takeover` do), and returns the takeovers for the caller to
// finish outside the state loop (finishTakeover: the handoff and the
// records). readBack names, by task and run, the steps whose end the
// resumed run reads back from their logs (see finishFromLog): their
// expired leases do not fail them. Called on the state loop.
func (c *Controller) fenceOrphans(st *loopState, orphans []ledger.Lease, readBack map[[2]string][]string) (takeovers []heal.Takeover) {
	now := c.now()
	runs := map[[2]string]bool{}
	for _, l := range orphans {
		runs[[2]string{l.TaskID, l.RunID}] = true
	}
	for _, key := range slices.SortedFunc(maps.Keys(runs), func(a, b [2]string) int { return cmp.Compare(a[0]+"/"+a[1], b[0]+"/"+b[1]) }) {
		t, err := heal.PlanTakeover(&st.pipeline, &st.leases, heal.TakeoverSpec{TaskID: key[0], RunID: key[1],
			Reason: vocab.ReasonSuccession, Successor: heal.Holder{ThreadID: "controller-" + strconv.Itoa(c.generation), PID: c.pid},
			TTL: c.leaseTTL(), ReadBack: readBack[key], NoHandoff: true}, now)
		if err != nil {
			continue
		}
		// The adopted leases only bridge to the resumed run, which takes
		// out its own; release them now.
		for _, l := range t.Adopted {
			_ = heal.Release(&st.leases, l.LeaseToken, now)
		}
		if st.pipeline.TaskID == key[0] && st.pipeline.RunID == key[1] {
			st.pipeline.RoleLifecycle = st.pipeline.RoleLifecycle.With(keyGeneration, strconv.Itoa(c.generation))
		}
		takeovers = append(takeovers, t)
	}
	if len(runs) > 0 {
		c.writeLeases(st)
	}
	return takeovers
}

// isOurWorker reports whether pid is a live worker of this root and task:
// daokit starts every worker with DAOKIT_ROOT and DAOKIT_TASK_ID in its
// environment. A reused pid of an unrelated process never matches, so it
// is never killed.
func (c *Controller) isOurWorker(pid int, taskID string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	vars := bytes.Split(env, []byte{0})
	has := func(kv string) bool {
		for _, v := range vars {
			if string(v) == kv {
				return true
			}
		}
		return false
	}
	return has("DAOKIT_ROOT="+c.opts.Root) && has("DAOKIT_TASK_ID="+taskID)
}
