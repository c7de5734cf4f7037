package controller

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/hooks"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// Options configure a controller.
type Options struct {
	// Root is the absolute ledger root.
	Root string
	// Config is the root's daokit.toml (config.Load), or defaults.
	Config config.Config
	// Self is the daokit binary, substituted for {daokit} in worker
	// commands (the built-in simulated worker is `daokit worker sim`).
	Self string
	// Lang is the language handed to workers ({lang}).
	Lang string
	// Logger receives the controller's log; nil discards it.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SyncData makes events.jsonl's appends durable; nil means
	// fdatasync(2). Tests inject one that waits.
	SyncData func(*os.File) error
	// Ready, if set, is called once the socket accepts connections.
	Ready func(socket string)

	// replica is the root's leadership on a hub (Run sets it with
	// [hub]): the store hands it every line before writing it.
	replica ledger.Replica
}

// Controller is the only process that executes anything for a root and
// the only writer of its ledger. It serves the relay socket, turns
// instructions into runs, supervises their workers and keeps the ledger.
type Controller struct {
	opts       Options
	cfg        config.Config
	workflow   []stepTemplate
	store      *ledger.Store
	server     *relay.Server
	log        *slog.Logger
	loc        *i18n.Localizer
	now        func() time.Time
	events     eventFactory
	pid        int
	generation int

	journal *journal
	index   *indexer   // what was acknowledged and what is still open
	hooks   *hooks.Set // daokit.toml's session-start, pre-dispatch and post-accept hooks
	// docs is the document writer, the one goroutine that writes
	// pipeline_state.json, leases.json and heartbeat.json (persist.go).
	docs docWriter
	// trees adds the steps' worktrees, one at a time (worktree_maker.go).
	trees treeMaker

	// state is the loop that owns the controller's state (loop.go):
	// the runs, the pipeline, the leases, the heartbeat, the lanes. It
	// runs from open until Run returns.
	state *stateLoop
	// slots asks the state loop for the lanes' slots (sched.go).
	slots *laneSlots
	// fenced is the pid of a hung controller this one killed to start.
	fenced int

	// procs tracks every process the controller starts for this root
	// (internal/proc): a successor kills what this one left.
	procs *proc.Scope

	runCtx  context.Context // parent of every run; cancelled on shutdown
	stopAll context.CancelFunc
	runs    sync.WaitGroup

	// bus is the event stream (bus.go); listeners the callbacks of
	// [[workflow.callbacks]] that hear it (events = "all").
	bus       bus
	listeners []*userSink

	// replay is the liveness loop's reader of other writers' events
	// (replay.go).
	replay *replaySignal

	// ahead offers remote steps ahead of their relays (hubahead.go);
	// nil without a hub.
	ahead *steps.Conn
}

// keptFinishedLeases is how many finished leases the register keeps; older
// ones are pruned at start and whenever a run releases its leases (their
// story is in events.jsonl), so that the register, rewritten on every
// change, stays small and its rewrite cost flat.
const keptFinishedLeases = 50

// opLeasesPruned records how many finished leases a start pruned.
const opLeasesPruned = string(vocab.OpLeasesPruned)

func orEnglish(lang string) string {
	if lang == "" {
		return i18n.English
	}
	return lang
}

// workflowOf turns the configured workflow into step templates.
func workflowOf(cfg config.Config) []stepTemplate {
	var wf []stepTemplate
	for _, s := range cfg.Workflow.Steps {
		title := s.Title
		if title == "" {
			title = "Carry out the instruction on lane " + s.Lane
		}
		wf = append(wf, stepTemplate{ID: s.ID, Lane: s.Lane, Title: title, Category: "implementation"})
	}
	if len(wf) == 0 {
		return defaultWorkflow()
	}
	return wf
}

// StateUnreadableError is returned by Run when the pipeline or the events
// cannot be read: the controller starts no work and writes nothing over
// them. A person fixes or moves File, then starts again.
type StateUnreadableError struct {
	File string
	Err  error
}

// Error implements error.
func (e *StateUnreadableError) Error() string {
	return fmt.Sprintf("state unreadable: %s: %v; fix or move the file, then retry", e.File, e.Err)
}

// Unwrap returns the read error.
func (e *StateUnreadableError) Unwrap() error { return e.Err }

// controllerState is the state windows see: ready, or disk_full while
// ledger writes are held for lack of space.
func (c *Controller) controllerState() string {
	if c.journal != nil && c.journal.isFull() {
		return stateDiskFull
	}
	return string(vocab.ControllerReady)
}

// stateDiskFull is the controller state while the ledger's disk is full.
const stateDiskFull = string(vocab.ControllerDiskFull)

// notify pushes a notice to every observing window.
func (c *Controller) notify(n relay.Notice) {
	if c.server == nil {
		return
	}
	if err := c.server.Notify(n); err != nil {
		c.log.Debug("notice refused", "kind", n.Kind, "err", err)
	}
}
