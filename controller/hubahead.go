package controller

import (
	"context"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
)

// aheadWait bounds the controller's offer ahead of a step's relay: a hub
// that fsyncs answers within milliseconds; one that does not answer
// (stopped, or a link lost and not yet noticed) leaves the offer to the
// relay, which waits out an outage, instead of holding the relay's start.
const aheadWait = 500 * time.Millisecond

// aheadConn is the connection the controller offers remote steps on
// ahead of their relays (hub/steps.OfferAhead): its leadership's on the
// hub, whose key writes all of the root's streams; nil without a hub.
func aheadConn(replica ledger.Replica) *steps.Conn {
	way, ok := replica.(remoteWay)
	if !ok {
		return nil
	}
	return steps.Over(way.JetStream(), way.Names())
}

// offerAhead publishes s's dispatch record and offer, as its relay will
// with the same message ids, right before the controller starts the
// relay: the step then waits for neither the relay's process start nor
// its dial to the hub, and the relay finds the dispatch open and follows
// it (the relay still follows the step; its own offer is stored once).
// at is when the controller began, the step's SpawnAt and RelayAt: no
// process start lies between. A failure leaves the offer to the relay,
// as without a connection.
func (c *Controller) offerAhead(ctx context.Context, s steps.Step, at int64) {
	if c.ahead == nil {
		return
	}
	s.SpawnAt, s.RelayAt = at, at
	ctx, cancel := context.WithTimeout(ctx, aheadWait)
	defer cancel()
	if _, err := c.ahead.OfferAhead(ctx, s); err != nil {
		c.log.Warn("offer a remote step ahead of its relay; the relay offers it", "step", s.StepID, "err", err)
	}
}
