package controller

import (
	"context"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/workflow"
)

// run is one instruction's run: its pipeline, and the worker of the step
// in progress. Every field belongs to the controller's state loop
// (loop.go): it is read and written inside the loop's requests only,
// except where its comment says otherwise.
type run struct {
	in       instruction
	pipeline ledger.PipelineState

	// life is the state machine of the step attempt in progress (nil
	// before the first): every attempt is a run of its own, with a
	// lifecycle of its own that refuses illegal transitions.
	life *lifecycle
	// attempt is the number of the current step's attempt in progress
	// or last made (see nextAttempt).
	attempt int
	// attempts is the last attempt number of each step of the run:
	// attempt numbers continue across the restart policy's restarts, a
	// person's /retry and controllers (seeded from the log's
	// STEP_STARTED: indexEntry.Attempts), so that a number names one
	// attempt of a step for good. A hub dispatch records the attempt
	// that offered it (and its closed record the one whose relay
	// reported its end), and a successor reads back the dispatch of
	// the attempt it is about to make, which a dead predecessor offered
	// without recording it (see hubSpec).
	attempts map[string]int

	cancel    context.CancelFunc // ends the run's goroutine and its worker
	cancelled bool               // a person asked to cancel
	abandoned bool               // a person dropped it while it waited
	proc      *worker.Process    // the worker of the current attempt, or nil
	lease     *heal.Held         // the worker's lease, or nil
	ctlLease  *heal.Held         // the controller's lease on the step, or nil
	// successors are leases the controller adopted in a takeover and holds
	// until the replacement worker starts; the liveness loop renews them
	// meanwhile (a backoff or a wait for the lane may outlast the TTL).
	successors []*heal.Held
	restarts   heal.Restarts
	// obs carries the liveness loop's observations about the current
	// attempt, its worker and its leases (see post); the loop sends, the
	// run receives.
	obs chan observations
	// hung (the attempt's worker was stopped as STALE) and warnedFor (the
	// silent streak already reported as WARNING, named by its last
	// signal) belong to the run's goroutine alone: it sets them when it
	// handles an observation, and no lock guards them.
	hung      bool
	warnedFor time.Time
	// agentStopped is the worker stopped for a futile retry (see
	// agentRetried), so that a second such retry does not turn the stop
	// into a SIGKILL. Run goroutine only.
	agentStopped *worker.Process
	// syncing is the last attempt's worker while its artifact logs may
	// still be syncing (see settleLogs); the run's goroutine alone uses
	// it.
	syncing *worker.Process
	// unended is the worker a dead controller left on a step of this run
	// without recording its end: the step's next attempt reads that
	// worker's end back from its logs before it starts another (see
	// finishFromLog).
	unended *unendedStep
	// readBack is the attempt of such a worker on a lane whose steps run
	// on agent hosts, when its logs here lacked its end (another host's
	// controller ran it, or its output died with its controller), or of
	// a relay stopped as stale (execute): the step's next relay reads
	// that attempt's dispatch back from the hub if it ended, instead of
	// running the step again (hubSpec; 0: none).
	readBack int
	// cpu is the liveness loop's own record of the worker's CPU time.
	cpu cpuWatch
	// quiet marks a run resumed at start that had never started a worker:
	// its renewed wait for a lane is not recorded again.
	quiet bool
	// gate is what the run's first attempt takes over from a wait for
	// its lane as data (see startOrQueue): set before its goroutine
	// starts, that goroutine's alone from then on.
	gate *queuedSlot
	// queueRecorded: the attempt's place in its lane's queue was recorded
	// (once per attempt; later moves only reach the windows).
	queueRecorded bool
	// The workflow's view of the step in progress: what its worker is
	// told, who observes it, where in a loop it stands, its last lines
	// (where a reviewer's verdict is read) and what it said.
	instruction string
	observe     *workflow.Observer
	iteration   int
	role        workflow.Role
	texts       []string
	output      workflow.Output
	// spent is what the run's workers reported they cost, up to the
	// last report (see spend): what its budget is checked against.
	spent float64
	// tree is the worktree of the current step, nil for a step that
	// runs in its lane's folder; dir is where the current worker runs.
	tree *stepTree
	dir  string
	// inFolder names the lanes that run in their folder for the rest of
	// the run (see treeFor).
	inFolder map[string]bool
	// review receives the person's verdict while a step waits for one.
	review chan verdict
	// round is a person's /reject of the run's pull request, which the
	// run's next start turns into another iteration (see beginRound).
	round *prRound
	// final is the pipeline status the run ended with ("" while active),
	// endReason the reason code it ended with.
	final     string
	endReason string
	// workerRan: a worker was started for the run (in any attempt, by
	// this controller or, as the log says, a previous one). A run that
	// ended before any did can still be abandoned.
	workerRan bool
	done      chan struct{}
}

func (r *run) finished() bool { return r.final != "" }

// nextAttempt numbers step's next attempt: one past the last the run
// made of it, here or, as the log says, under a previous controller.
// Called on the state loop.
func (r *run) nextAttempt(step string) int {
	r.sawAttempt(step, r.attempts[step]+1)
	return r.attempts[step]
}

// sawAttempt notes that step's attempt n was made (a left worker's,
// ended from its log). Called on the state loop.
func (r *run) sawAttempt(step string, n int) {
	if r.attempts == nil {
		r.attempts = map[string]int{}
	}
	r.attempts[step] = max(r.attempts[step], n)
}

// pipelineOf returns r's pipeline, for a change made on the state loop
// (see finishTakeover).
func (r *run) pipelineOf(*loopState) *ledger.PipelineState { return &r.pipeline }

// runState returns the attempt's state and the reason of its last change.
func (r *run) runState() (state, reason string) {
	if r.life == nil {
		return stateIdle, ""
	}
	return r.life.Current()
}

func (r *run) relayState() relay.RunState {
	route := r.pipeline.Route()
	state, reason := r.runState()
	return relay.RunState{TaskID: route.TaskID, RunID: route.RunID, StepID: route.ActiveStep,
		Lane: route.ActiveLane, State: state, Reason: reason}
}
