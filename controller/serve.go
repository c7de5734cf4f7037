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
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// Run starts a controller on opts.Root and serves until ctx ends or, with
// an idle exit configured, until it has been idle that long. It returns
// nil after a clean shutdown. Work in flight when ctx ends is stopped and
// left to the next controller, which resumes it.
//
// A root folder deleted or replaced while it serves ends it too, its
// workers stopped, with a *RootGoneError (see watchRoot).
func Run(ctx context.Context, opts Options) error {
	// Where cgroups cannot track a step's tree, its descendants that
	// leave their group must still become ours when their parent dies.
	proc.BecomeSubreaper()
	id, err := statFolder(opts.Root)
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	lead, rec, err := leadOnHub(ctx, opts)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil // stopped while waiting as a standby
		}
		return err
	}
	if lead != nil {
		defer lead.Close()
		opts.replica = lead
		var stepDown func()
		ctx, stepDown = stepDownOn(ctx, lead)
		defer stepDown()
	}
	c, err := open(opts)
	if err != nil {
		return err
	}
	// Deferred first, so run last: after the journal's and the store's
	// close, once serve waited for every run, the liveness loop, the
	// relay's handlers and the Leads.
	defer c.close()
	defer c.store.Close()
	defer c.journal.close()
	if lead != nil {
		if err := c.recordElected(lead, rec); err != nil {
			return err
		}
	}
	served, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var watch sync.WaitGroup
	watch.Go(func() { watchRoot(served, opts.Root, id, stop) })
	err = c.serve(served)
	var gone *RootGoneError
	if errors.As(context.Cause(served), &gone) {
		err = gone
	}
	stop(nil)
	watch.Wait()
	if deposed(ctx) {
		return fmt.Errorf("controller: %w", ErrDeposed)
	}
	return err
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
		state:    newStateLoop(),
		fenced:   fenced,
		hooks:    lifecycleHooks(&opts.Config, opts.Logger),
		docs:     newDocWriter(),
		trees:    newTreeMaker(),
		ahead:    aheadConn(opts.replica),
	}
	c.slots = &laneSlots{loop: c.state, apply: c.applyLanes}
	st := &loopState{lanes: newLaneScheduler(opts.Config.ConcurrencyLimits())}
	if err := c.loadLedger(st); err != nil {
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
	c.generation = max(c.generation, index.maxGeneration()+1)
	c.log.Info("instruction index loaded", "open", len(index.open), "replayed_events", load.Replayed,
		"from_offset", load.From, "rebuilt", load.Rebuilt)
	c.journal = newJournal(store, index, c.now, func(err error) { c.log.Error("journal", "err", err) }, c.diskFull)
	c.index = c.journal.index
	c.journal.bus = &c.bus
	// What the log holds now was replayed above; the liveness loop reads
	// what is appended from here on (see replaySignal).
	c.replay = newReplaySignal(store.Layout().Events(), store.EventsSize())
	c.journal.own = &c.replay.own
	// Before anything can ask it; Run stops it last (close).
	c.state.start(st)
	return c, nil
}

// close stops the state loop: the last thing a controller does, once
// nothing that could ask the loop runs any more (see Run).
func (c *Controller) close() { c.state.stop() }

// loadLedger reads the state the previous controller left. A pipeline
// that exists but cannot be read stops the start (seed 004's fail-closed
// rule): it is left byte for byte for a person to fix or move, rather
// than replaced by a fresh one that would hide the run it held. A lease
// register that cannot be read is logged and replaced on the next write.
// It fills st, the state loop's state before the loop starts.
func (c *Controller) loadLedger(st *loopState) error {
	snap := ledger.LoadSnapshot(c.opts.Root)
	now := c.now()
	st.pipeline, st.leases, st.hb = ledger.NewPipelineState(now), ledger.NewLeases(now), ledger.NewHeartbeatStatus(now)
	switch {
	case snap.Pipeline.OK():
		st.pipeline = snap.Pipeline.Value
	case !errors.Is(snap.Pipeline.Err, ledger.ErrMissing):
		err := snap.Pipeline.Err
		var fe *ledger.FileError
		if errors.As(err, &fe) {
			err = fe.Err // the path is the error's File already
		}
		return &StateUnreadableError{File: ledger.Layout{Root: c.opts.Root}.Pipeline(), Err: err}
	}
	if snap.Leases.OK() {
		st.leases = snap.Leases.Value
	} else if !errors.Is(snap.Leases.Err, ledger.ErrMissing) {
		c.log.Warn("lease register unreadable; starting fresh", "err", snap.Leases.Err)
	}
	if snap.Heartbeat.OK() {
		st.hb = snap.Heartbeat.Value
	}
	c.generation = generation(&st.pipeline) + 1
	return nil
}

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
	c.runCtx, c.stopAll = context.WithCancel(proc.WithScope(context.Background(), c.procs))
	defer c.stopAll()
	// Before the start is announced, so that they hear it; shutdown
	// stops them after the stop is recorded, or this on a failed start.
	c.startListeners()
	defer c.stopListeners()
	stopDocs := c.startDocs()
	defer stopDocs()
	defer c.trees.start()()

	if err := c.announce(); err != nil {
		l.Close()
		return err
	}
	c.sweepOrphans()
	c.adoptEnded(c.index.endedEntries())
	unfinished := c.adoptUnfinished(c.recover())
	var pruned int
	c.do(func(st *loopState) {
		pruned = c.pruneLeases(st)
		c.holdStandingLease(st)
	})
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
	stopRemote := c.serveRemote(serveCtx, srv)
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
	stopRemote()
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
	busy := false
	c.do(func(st *loopState) {
		for _, r := range st.order {
			busy = busy || !r.finished()
		}
	})
	return busy
}

// shutdown stops every worker and waits for the runs to wind down. Runs
// interrupted this way record no terminal state: the next controller
// finds them unfinished and resumes them.
func (c *Controller) shutdown() {
	c.do(func(st *loopState) {
		st.stopping = true
	})
	c.stopAll()
	c.runs.Wait()
	c.do(func(st *loopState) {
		if st.standing != nil && st.standing.Release(&st.leases, c.now()) == nil {
			c.writeLeases(st)
		}
	})
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
