package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/hooks"
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
	index   *instrIndex // what was acknowledged and what is still open
	hooks   *hooks.Set  // daokit.toml's session-start, pre-dispatch and post-accept hooks
	// docMu serialises document writes; each write takes the latest state
	// under mu and writes it outside mu (see flushDocs).
	docMu sync.Mutex
	// docErrs is the last error each document's write failed with, so
	// that a write retried at every flush logs a failure once, not five
	// times a second. Guarded by docMu.
	docErrs map[docSet]string
	// docKick wakes the document writer (see writeSoon).
	docKick chan struct{}
	// treeMu serialises worktree creation: `git worktree add` names its
	// administrative folder after the path's last element, and two at
	// once can race for the same name.
	treeMu sync.Mutex

	mu       sync.Mutex
	dirty    docSet               // documents changed since the last flush
	pending  ledger.PipelineState // the pipeline to write next
	pipeline ledger.PipelineState // what the previous controller left, for recovery
	leases   ledger.Leases
	hb       ledger.HeartbeatStatus
	order    []*run // every run of this process, oldest first
	current  *run   // the run pipeline_state.json shows
	// watched: an observer has watched since the waiting runs were last
	// dropped for their person leaving (leave.go).
	watched  bool
	slots    *laneSlots
	stopping bool
	// outcomes are the answers of the latest forwarded commands, by
	// message id (outcomeIDs, oldest first), for a resend (operate.go).
	outcomes   map[string]relay.Outcome
	outcomeIDs []string
	// standing is the controller's standing lease.
	standing *heal.Held
	// fenced is the pid of a hung controller this one killed to start.
	fenced int
	// team supervises the role Leads (team.go); nil without workflow.toml.
	team *teamSup

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
}

// keptFinishedLeases is how many finished leases the register keeps; older
// ones are pruned at start and whenever a run releases its leases (their
// story is in events.jsonl), so that the register, rewritten on every
// change, stays small and its rewrite cost flat.
const keptFinishedLeases = 50

// opLeasesPruned records how many finished leases a start pruned.
const opLeasesPruned = string(vocab.OpLeasesPruned)

// Run starts a controller on opts.Root and serves until ctx ends or, with
// an idle exit configured, until it has been idle that long. It returns
// nil after a clean shutdown. Work in flight when ctx ends is stopped and
// left to the next controller, which resumes it.
func Run(ctx context.Context, opts Options) error {
	// Where cgroups cannot track a step's tree, its descendants that
	// leave their group must still become ours when their parent dies.
	proc.BecomeSubreaper()
	c, err := open(opts)
	if err != nil {
		return err
	}
	defer c.store.Close()
	defer c.journal.close()
	return c.serve(ctx)
}

func open(opts Options) (*Controller, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if _, err := ledger.InitState(opts.Root, opts.Now()); err != nil {
		return nil, fmt.Errorf("controller: prepare ledger: %w", err)
	}
	store, fenced, err := openFencing(opts, leaseTTLOf(opts.Config))
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	c := &Controller{
		opts:     opts,
		cfg:      opts.Config,
		workflow: flowSteps(opts.Config),
		store:    store,
		log:      opts.Logger,
		loc:      i18n.MustNew(orEnglish(opts.Lang)),
		now:      opts.Now,
		events:   eventFactory{now: opts.Now},
		pid:      os.Getpid(),
		procs:    proc.NewScope(opts.Root),
		slots:    newLaneSlots(opts.Config.ConcurrencyLimits()),
		fenced:   fenced,
		hooks:    lifecycleHooks(&opts.Config, opts.Logger),
		docKick:  make(chan struct{}, 1),
	}
	if err := c.loadLedger(); err != nil {
		store.Close()
		c.log.Error("refusing to start", "err", err)
		return nil, err
	}
	index, load, err := loadIndex(store.Layout().StateDir())
	if err != nil {
		store.Close()
		c.log.Error("refusing to start", "err", err)
		return nil, err
	}
	c.index = index
	c.generation = max(c.generation, index.maxGeneration()+1)
	c.log.Info("instruction index loaded", "open", len(index.open), "replayed_events", load.Replayed,
		"from_offset", load.From, "rebuilt", load.Rebuilt)
	c.journal = newJournal(store, index, c.now, func(err error) { c.log.Error("journal", "err", err) }, c.diskFull)
	c.journal.bus = &c.bus
	// What the log holds now was replayed above; the liveness loop reads
	// what is appended from here on (see replaySignal).
	c.replay = newReplaySignal(store.Layout().Events(), store.EventsSize())
	c.journal.own = &c.replay.own
	return c, nil
}

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

// loadLedger reads the state the previous controller left. A pipeline
// that exists but cannot be read stops the start (seed 004's fail-closed
// rule): it is left byte for byte for a person to fix or move, rather
// than replaced by a fresh one that would hide the run it held. A lease
// register that cannot be read is logged and replaced on the next write.
func (c *Controller) loadLedger() error {
	snap := ledger.LoadSnapshot(c.opts.Root)
	now := c.now()
	c.pipeline, c.leases, c.hb = ledger.NewPipelineState(now), ledger.NewLeases(now), ledger.NewHeartbeatStatus(now)
	switch {
	case snap.Pipeline.OK():
		c.pipeline = snap.Pipeline.Value
	case !errors.Is(snap.Pipeline.Err, ledger.ErrMissing):
		err := snap.Pipeline.Err
		var fe *ledger.FileError
		if errors.As(err, &fe) {
			err = fe.Err // the path is the error's File already
		}
		return &StateUnreadableError{File: ledger.Layout{Root: c.opts.Root}.Pipeline(), Err: err}
	}
	if snap.Leases.OK() {
		c.leases = snap.Leases.Value
	} else if !errors.Is(snap.Leases.Err, ledger.ErrMissing) {
		c.log.Warn("lease register unreadable; starting fresh", "err", snap.Leases.Err)
	}
	if snap.Heartbeat.OK() {
		c.hb = snap.Heartbeat.Value
	}
	c.generation = generation(&c.pipeline) + 1
	return nil
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

func (c *Controller) serve(ctx context.Context) error {
	l, err := relay.Listen(c.opts.Root)
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	scfg := relay.DefaultServerConfig()
	scfg.Root, scfg.Logger = c.opts.Root, c.log
	cc := c.cfg.Controller
	scfg.MaxConns, scfg.FDReserve = cc.MaxConnections, cc.FDReserve
	scfg.IdleTimeout, scfg.ReadTimeout = cc.ConnIdleTimeout.Std(), cc.ConnReadTimeout.Std()
	srv, err := relay.NewServer(c, scfg)
	if err != nil {
		l.Close()
		return fmt.Errorf("controller: %w", err)
	}
	c.server = srv
	// The lanes' loop outlives every run: it stops after shutdown waited
	// for them.
	c.slots.apply = c.applyLanes
	c.slots.start()
	defer c.slots.stop()
	c.runCtx, c.stopAll = context.WithCancel(proc.WithScope(context.Background(), c.procs))
	defer c.stopAll()
	// Before the start is announced, so that they hear it; shutdown
	// stops them after the stop is recorded, or this on a failed start.
	c.startListeners()
	defer c.stopListeners()
	stopDocs, docsDone := make(chan struct{}), make(chan struct{})
	go c.docWriter(stopDocs, docsDone)
	defer func() {
		close(stopDocs)
		<-docsDone
	}()

	if err := c.announce(); err != nil {
		l.Close()
		return err
	}
	c.sweepOrphans()
	c.adoptEnded(c.index.endedEntries())
	unfinished := c.adoptUnfinished(c.recover())
	c.mu.Lock()
	pruned := c.pruneLeasesLocked()
	c.holdStandingLeaseLocked()
	c.mu.Unlock()
	if pruned > 0 {
		e := c.events.system(globalID, globalID, "", ledger.SeverityInfo, opLeasesPruned,
			"removed", pruned, "kept_finished", keptFinishedLeases)
		if err := c.journal.append(e); err != nil {
			c.log.Error("record lease pruning", "err", err)
		}
	}
	c.flushDocs()
	serveCtx, stopServing := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, l) }()
	if c.opts.Ready != nil {
		c.opts.Ready(l.Addr().String())
	}
	c.resume(unfinished)
	c.sessionStart()
	c.startTeam()
	err = c.loop(ctx)
	// From here the controller ends even on a disk that stays full: what
	// it acknowledged is durable, and its successor resumes that.
	c.journal.stopHolding(closeRetry)
	c.stopTeam()
	c.shutdown()
	stopServing()
	if serr := <-served; serr != nil && !errors.Is(serr, relay.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// announce records the controller's start, its fencing generation and any
// repair the store made to a torn event log.
func (c *Controller) announce() error {
	events := []ledger.Event{c.events.system(globalID, globalID, "", ledger.SeverityInfo, opControllerStarted,
		"pid", c.pid, "generation", c.generation)}
	if c.fenced != 0 {
		events = append(events, c.events.system(globalID, globalID, "", ledger.SeverityWarn, opControllerFenced,
			"pid", c.fenced, "reason_code", "STANDING_LEASE_EXPIRED", "generation", c.generation))
	}
	if rep := c.store.Repair(); rep.Repaired() {
		events = append(events, c.events.system(globalID, globalID, "", ledger.SeverityWarn, opLedgerRepaired,
			"repair", fmt.Sprintf("%+v", rep)))
	}
	if err := c.journal.append(events...); err != nil {
		return fmt.Errorf("controller: record start: %w", err)
	}
	c.log.Info("controller started", "root", c.opts.Root, "pid", c.pid, "generation", c.generation)
	return nil
}

// loop runs the liveness checks until ctx ends or the controller has been
// idle (no run, no window) for the configured time.
func (c *Controller) loop(ctx context.Context) error {
	interval := c.cfg.Heartbeat.CheckInterval.Std()
	if interval <= 0 {
		interval = config.DefaultCheckInterval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	idleSince := c.now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		c.checkLiveness()
		c.checkLeave()
		c.superviseTeam()
		if c.busy() || c.server.Stats().Conns > 0 || c.teamActive() {
			idleSince = c.now()
			continue
		}
		if limit := c.cfg.Controller.IdleExit.Std(); limit > 0 && c.now().Sub(idleSince) >= limit {
			c.log.Info("idle; exiting", "idle_for", limit)
			return nil
		}
	}
}

// busy reports whether any run is still in progress.
func (c *Controller) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.order {
		if !r.finished() {
			return true
		}
	}
	return false
}

// shutdown stops every worker and waits for the runs to wind down. Runs
// interrupted this way record no terminal state: the next controller
// finds them unfinished and resumes them.
func (c *Controller) shutdown() {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	c.stopAll()
	c.runs.Wait()
	c.mu.Lock()
	if c.standing != nil && c.standing.Release(&c.leases, c.now()) == nil {
		c.writeLeasesLocked()
	}
	c.mu.Unlock()
	c.flushDocs()
	e := c.events.system(globalID, globalID, "", ledger.SeverityInfo, opControllerStopped, "pid", c.pid, "generation", c.generation)
	if err := c.journal.append(e); err != nil {
		c.log.Error("record stop", "err", err)
	}
	// After the stop is recorded, so that they hear it.
	c.stopListeners()
	c.procs.Close()
	c.log.Info("controller stopped")
}

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

// diskFull tells the log and the windows that ledger writes started or
// stopped failing for lack of space.
func (c *Controller) diskFull(full bool) {
	if full {
		c.log.Error("the ledger's disk is full; holding writes and refusing new instructions")
	} else {
		c.log.Warn("the ledger's disk has room again; held writes are written")
	}
	c.notify(relay.Notice{Kind: relay.NoticeController, Controller: &relay.ControllerState{
		State: c.controllerState(), PID: c.pid}})
}

// notify pushes a notice to every observing window.
func (c *Controller) notify(n relay.Notice) {
	if c.server == nil {
		return
	}
	if err := c.server.Notify(n); err != nil {
		c.log.Debug("notice refused", "kind", n.Kind, "err", err)
	}
}
