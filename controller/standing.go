package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
)

// The controller's standing lease names no run: it says "this controller
// is alive", renewed on every check. A successor that finds the root
// locked by a process whose standing lease has expired knows the holder
// is hung (paused, stuck in the kernel) and fences it.
const (
	standingTask = liveness.StandingTask
	standingStep = "controller"
	// opControllerFenced records that a hung controller was killed.
	opControllerFenced = string(vocab.OpControllerFenced)
	// fenceWait bounds the wait for a killed holder's lock to go.
	fenceWait = 10 * time.Second
)

func standingRun(generation int) string { return "generation-" + strconv.Itoa(generation) }

// holdStandingLease registers this controller's standing lease.
// Called on the state loop.
func (c *Controller) holdStandingLease(st *loopState) {
	h, err := heal.Hold(&st.leases, heal.LeaseSpec{
		Lane: heal.ControllerLane, TaskID: standingTask, RunID: standingRun(c.generation), StepID: standingStep,
		Holder: heal.Holder{ThreadID: "controller-" + strconv.Itoa(c.generation), PID: c.pid}, TTL: c.leaseTTL(),
	}, c.now())
	if err != nil {
		c.log.Error("standing lease", "err", err)
		return
	}
	st.standing = h
	c.writeLeases(st)
}

// pruneLeases drops the oldest finished leases beyond
// keptFinishedLeases and reports how many went. Called on the state loop.
func (c *Controller) pruneLeases(st *loopState) int {
	return heal.PruneFinished(&st.leases, keptFinishedLeases)
}

// HolderAnswersError is returned by Run when the controller holding the
// root let its standing lease expire but still answers on its socket:
// its disk may be full (renewals could not be written) or a clock jumped.
// It is alive, so it is left alone. It wraps the *ledger.LockedError.
type HolderAnswersError struct {
	PID    int
	Locked error
}

// Error implements error.
func (e *HolderAnswersError) Error() string {
	return fmt.Sprintf("%v; its standing lease expired but it answers on its socket, so it was left alone", e.Locked)
}

// Unwrap returns the *ledger.LockedError.
func (e *HolderAnswersError) Unwrap() error { return e.Locked }

// pingTimeout bounds how long a successor waits for the holder to answer
// before it counts the holder as not answering.
const pingTimeout = 2 * time.Second

// openFencing opens the store; when a dead or hung controller holds the
// root it kills that holder first, but only on two independent signals:
// its standing lease expired, and it does not answer on its socket. It
// returns the pid it fenced (0 if none).
func openFencing(opts Options, ttl time.Duration) (*ledger.Store, int, error) {
	store, err := ledger.Open(opts.Root, ledger.Options{Now: opts.Now, SyncData: opts.SyncData, Replica: opts.replica})
	var locked *ledger.LockedError
	if !errors.As(err, &locked) {
		return store, 0, err
	}
	// The kernel's flock holder, not the pid the lock file names: this
	// one is about to be killed, and a stale pid must never be.
	holder, lerr := ledger.LockHolder(opts.Root)
	if lerr != nil || holder == 0 {
		return nil, 0, err
	}
	var reg ledger.Leases
	if snap := ledger.LoadSnapshot(opts.Root); snap.Leases.HasValue() {
		reg = snap.Leases.Value
	}
	ctl := liveness.JudgeController(holder, liveness.ProcessAlive(holder), &reg, opts.Now())
	switch heal.DecideFence(ctl, func() bool { return answers(opts.Root) }) {
	case heal.FenceNone:
		return nil, 0, err
	case heal.FenceSpare:
		opts.Logger.Warn("the controller holding the root let its lease expire but answers; leaving it alone", "pid", holder)
		return nil, 0, &HolderAnswersError{PID: holder, Locked: err}
	}
	opts.Logger.Warn("the controller holding the root is hung; fencing it", "pid", holder)
	if kerr := syscall.Kill(holder, syscall.SIGKILL); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
		return nil, 0, fmt.Errorf("fence controller %d: %w", holder, kerr)
	}
	deadline := time.Now().Add(fenceWait)
	for {
		store, err = ledger.Open(opts.Root, ledger.Options{Now: opts.Now, SyncData: opts.SyncData, Replica: opts.replica})
		if !errors.As(err, &locked) || time.Now().After(deadline) {
			return store, holder, err
		}
		time.Sleep(20 * time.Millisecond) // the kernel releases the lock as the process dies
	}
}

// answers reports whether a controller serves root's socket: it completes
// the handshake and a ping within pingTimeout. A paused or hung process
// accepts the connection (the kernel's backlog) but never says hello.
func answers(root string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	cfg := relay.DefaultClientConfig()
	cfg.DialTimeout = pingTimeout
	client, err := relay.Dial(ctx, root, cfg)
	if err != nil {
		return false
	}
	defer client.Close()
	_, err = client.Ping(ctx)
	return err == nil
}
