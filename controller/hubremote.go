package controller

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/remote"
	"github.com/daokit/daokit/relay"
)

// remoteWay is what the controller needs of its leadership to answer the
// requests of people on other hosts (hub/leader.Leader).
type remoteWay interface {
	JetStream() jetstream.JetStream
	Names() naming.Root
}

// serveRemote answers, while the controller leads its root on a hub, the
// instructions and control requests people send through the hub
// (`daokit send --hub`, a remote window), by the relay server's own
// checks, flights and handler: a request is the same whichever way it
// came. It returns at once without a hub. The returned stop waits for
// the answering goroutine.
func (c *Controller) serveRemote(ctx context.Context, srv *relay.Server) (stop func()) {
	way, ok := c.opts.replica.(remoteWay)
	if !ok {
		return func() {}
	}
	l, err := remote.Lead(ctx, way.JetStream(), way.Names())
	if err != nil {
		c.log.Error("remote requests through the hub are off", "err", err)
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := l.Serve(ctx, func(ctx context.Context, env relay.Envelope) relay.Envelope {
			return srv.AnswerRemote(ctx, env, "hub")
		})
		if err != nil {
			c.log.Error("remote requests through the hub stopped", "err", err)
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
