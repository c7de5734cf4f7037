package steps

import (
	"context"
	"errors"

	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Over is a Conn on a connection its caller holds and closes (the
// controller's, as the root's leader: hub/leader), for OfferAhead; it
// is never Closed itself.
func Over(js jetstream.JetStream, root naming.Root) *Conn {
	return &Conn{NC: js.Conn(), JS: js, Root: root}
}

// OfferAhead publishes what s's relay would publish first, a fresh
// dispatch's record and the step's offer, with the same message ids,
// so that the step waits neither for its relay's process start nor for
// its dial: the controller calls it on the connection it already holds,
// right before it starts the relay, which then finds that dispatch
// open, follows it and offers it again, stored once (the dedupe window
// is a day). It reports whether it offered the step; it offers nothing
// where the relay must decide with what it alone has or knows: a read
// back (Step.ReadBack; nor is a dispatch of s's attempt that a
// predecessor offered and that ended: see dispatchOf), a step whose bundle
// the relay publishes from its worktree first (Step.Bundle), a dispatch
// to follow rather than a fresh one (the relay follows it, offering it
// again), a connection that is not up (a publish would wait in the
// client's buffer for the hub to return). An error leaves the offer to
// the relay, as without it; one of the two records stored without the
// other is what a relay that died midway leaves, which its successor
// completes with the same ids (see offer).
func (c *Conn) OfferAhead(ctx context.Context, s Step) (bool, error) {
	if s.ReadBack > 0 || s.Bundle || c.NC.Status() != nats.CONNECTED {
		return false, nil
	}
	at, err := c.dispatchOf(ctx, s)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// The root's first remote step, as its relay does.
		if err := c.EnsureStreams(ctx); err != nil {
			return false, err
		}
		at, err = c.dispatchOf(ctx, s)
	}
	if err != nil || !at.fresh {
		return false, err
	}
	s.Dispatch = at.dispatch
	d, err := c.publishAsync(s.Key, Record{Type: TypeDispatch, Dispatch: at.dispatch, Attempt: s.Attempt})
	if err != nil {
		return false, err
	}
	o, err := c.offerAsync(s)
	if err != nil {
		return false, err
	}
	for _, f := range []jetstream.PubAckFuture{d, o} {
		if err := acked(ctx, f); err != nil {
			return false, err
		}
	}
	return true, nil
}
