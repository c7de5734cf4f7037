package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/daokit/daokit/hub/leader"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// opHubLeaderElected is the elected record's operation.
const opHubLeaderElected = string(vocab.OpHubLeaderElected)

// ErrDeposed ends Run when another controller took the root on the hub:
// this one stopped its workers and wrote nothing after its successor's
// first write (the hub refused it).
var ErrDeposed = leader.ErrDeposed

// hubLeadership is what the controller needs of its root's lease on a
// hub (hub/leader.Leader): the store's replica, which publishes every
// line before the store writes it, and word of a deposition.
type hubLeadership interface {
	ledger.Replica
	Deposed() <-chan struct{}
	StopWaiting(within time.Duration)
	Close()
}

// leadOnHub campaigns for the root's lease when daokit.toml has [hub]
// (nil, nil without), waiting as a standby while another controller
// leads, then brings the folder and the hub into agreement before the
// ledger is opened (leader.Reconcile): a folder that another host's
// leader moved past is caught up from the hub first.
func leadOnHub(ctx context.Context, opts Options) (*leader.Leader, leader.Reconciled, error) {
	h := opts.Config.Hub
	if !h.Enabled() {
		return nil, leader.Reconciled{}, nil
	}
	host, _ := os.Hostname()
	opts.Logger.Info("campaigning for the root's lease on the hub", "hub", h.URL, "root_id", h.RootID)
	l, err := leader.Campaign(ctx, leader.Options{
		Hub:  mirror.Hub{URL: h.URL, Credentials: h.CredentialsPath(opts.Root), Name: "daokit controller " + h.RootID},
		Root: h.RootID, TTL: h.LeaseTTL.Std(), Logger: opts.Logger,
		Holder: fmt.Sprintf("%s pid %d %s", host, os.Getpid(), opts.Root),
	})
	if err != nil {
		return nil, leader.Reconciled{}, fmt.Errorf("controller: hub: %w", err)
	}
	rec, err := l.Reconcile(ctx, opts.Root)
	if err != nil {
		l.Close()
		return nil, rec, fmt.Errorf("controller: hub: %w", err)
	}
	opts.Logger.Info("elected leader of the root on the hub", "term", l.Term(), "sequence", rec.Sequence,
		"fetched", rec.Fetched, "published", rec.Published, "restored", rec.Restored)
	return l, rec, nil
}

// recordElected appends the elected record at once: it is the new
// leader's first write to the stream, the one that fences its
// predecessor.
func (c *Controller) recordElected(l *leader.Leader, rec leader.Reconciled) error {
	h := c.cfg.Hub
	e := c.events.system(globalID, globalID, "", ledger.SeverityInfo, opHubLeaderElected,
		"root_id", h.RootID, "term", l.Term(), "pid", c.pid, "sequence", rec.Sequence,
		"fetched", rec.Fetched, "published", rec.Published, "restored", rec.Restored)
	if err := c.journal.append(e); err != nil {
		return fmt.Errorf("controller: record the election: %w", err)
	}
	return nil
}

// stepDownOn returns ctx ended when l is deposed, so that the controller
// stops its workers and ends; and bounds l's wait for an absent hub once
// ctx ends (the controller is stopping). stop ends the watch.
func stepDownOn(ctx context.Context, l hubLeadership) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-l.Deposed():
			cancel(ErrDeposed)
		case <-ctx.Done():
		}
		l.StopWaiting(closeRetry)
	}()
	return ctx, func() {
		cancel(nil)
		<-done
	}
}

// deposed reports whether ctx ended because the root's lease was lost.
func deposed(ctx context.Context) bool { return errors.Is(context.Cause(ctx), ErrDeposed) }
