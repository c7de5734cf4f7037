// Package agent is `daokit agent`: an agent host that pulls a root's
// steps from the hub for the lanes it offers and runs each with the same
// process runtime as the controller's local workers (package worker:
// logs, timeout, tree kill), in a worktree of its own clone of the
// project, sending the output and the end back (hub/steps). It only
// dials out: it works behind NAT.
//
// It fences itself: the hub redelivers a step whose agent has not
// renewed it within AckWait, so an agent that cannot renew (cut off, the
// hub unreachable) kills the step's process before that, and sends
// nothing more for it; whatever it might still send carries its
// delivery, which the controller's relay no longer prints. And the hub
// may hand a step on while its agent still runs and renews it (after a
// restart: see hub/steps' live.go): the agent handed it again waits
// while the first says it holds it, and the first, should the second
// start all the same, stops its step and sends nothing more (hold.go).
// A delivery the hub handed to two agents at once (it died before it
// wrote down the first) is claimed on the hub before either prepares
// it: the second claimant waits for the first the same way.
package agent

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultAckWait is how long the hub waits for a sign of life of the
// agent holding a step before it hands the step to another.
const DefaultAckWait = 30 * time.Second

// fetchWait bounds one pull request: the agent asks again after it, so
// a consumer changed or deleted under it is noticed.
const fetchWait = 30 * time.Second

// Options configure an agent host.
type Options struct {
	// Name is the agent's name, in DAOKIT_AGENT and the step's records.
	Name string
	// Lanes are the lanes whose steps it runs.
	Lanes []string
	// Slots is how many steps of each lane it runs at once (at least 1):
	// it pulls a step only when a slot is free, so it never holds more
	// unacknowledged.
	Slots int
	// WorkDir holds its clones, the steps' worktrees and their logs.
	WorkDir string
	// AckWait is the lane consumers' AckWait (the agents of a root should
	// agree on it: the last to start sets it).
	AckWait time.Duration
	// Self is the daokit binary that steps name as steps.SelfArg.
	Self string
	// Log receives what went wrong outside a step; nil: discarded.
	Log *slog.Logger
	// Started, if set, is called just before a step's process is
	// started (the dispatch benchmark's clock).
	Started func(s steps.Step, delivery int)
}

// Agent is a running agent host.
type Agent struct {
	c   *steps.Conn
	o   Options
	log *slog.Logger
	git sync.Mutex // one git command on the clones at a time
}

// Run serves the lanes until ctx ends, then stops the steps it runs
// (they are redelivered to another agent) and returns.
func Run(ctx context.Context, c *steps.Conn, o Options) error {
	if o.Slots < 1 {
		o.Slots = 1
	}
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	a := &Agent{c: c, o: o, log: o.Log}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if err := c.EnsureStreams(ctx); err != nil {
		return err
	}
	// A pull request dies with the hub that held it: asked again at
	// once on a reconnection (see pull).
	c.WatchReconnects()
	var consumers []jetstream.Consumer
	for _, lane := range o.Lanes {
		cons, err := c.LaneConsumer(ctx, lane, o.AckWait)
		if err != nil {
			return err
		}
		consumers = append(consumers, cons)
	}
	var wg sync.WaitGroup
	for i, cons := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.serveLane(ctx, o.Lanes[i], cons)
		}()
	}
	wg.Wait()
	return nil
}

// serveLane pulls one step per free slot and runs it.
func (a *Agent) serveLane(ctx context.Context, lane string, cons jetstream.Consumer) {
	slots := make(chan struct{}, a.o.Slots)
	var running sync.WaitGroup
	defer running.Wait()
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		msg, err := a.pull(ctx, cons)
		if err != nil {
			<-slots
			if ctx.Err() != nil {
				return
			}
			a.log.Warn("pull a step", "lane", lane, "err", err)
			wait(ctx, time.Second)
			continue
		}
		if msg == nil {
			<-slots
			continue
		}
		running.Add(1)
		go func() {
			defer running.Done()
			defer func() { <-slots }()
			a.handle(ctx, lane, msg)
		}()
	}
}

// pull waits for one step, nil when none came within fetchWait.
func (a *Agent) pull(ctx context.Context, cons jetstream.Consumer) (jetstream.Msg, error) {
	fctx, cancel := context.WithTimeout(ctx, fetchWait)
	re := a.c.Reconnected()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-re:
			cancel() // the pull died with the hub that held it
		case <-fctx.Done():
		}
	}()
	defer func() { cancel(); <-watched }()
	batch, err := cons.Fetch(1, jetstream.FetchContext(fctx))
	if err != nil {
		if ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
			return nil, nil
		}
		return nil, err
	}
	for m := range batch.Messages() {
		return m, nil
	}
	if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !errors.Is(err, jetstream.ErrNoMessages) {
		return nil, err
	}
	return nil, nil
}

// wait sleeps d or until ctx ends: a pause between failed pulls, not a
// wait for a condition.
func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
