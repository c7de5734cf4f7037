package steps

import (
	"context"
	"sync"
	"time"

	"github.com/daokit/daokit/backoff"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// reconnects tells a connection's users that it was made again: what the
// hub held for it in memory (a pull request, an ordered consumer) died
// with the hub it restarted from, and the client library notices only
// once that thing's heartbeats go missing, some ten seconds later, while
// a step waits on the queue or its records wait to be printed.
type reconnects struct {
	once sync.Once
	mu   sync.Mutex
	ch   chan struct{}
}

// WatchReconnects makes Reconnected work (once per connection; a
// handler the connection had is still called).
func (c *Conn) WatchReconnects() {
	c.re.once.Do(func() {
		c.re.mu.Lock()
		c.re.ch = make(chan struct{})
		c.re.mu.Unlock()
		prev := c.NC.Opts.ReconnectedCB
		c.NC.SetReconnectHandler(func(nc *nats.Conn) {
			if prev != nil {
				prev(nc)
			}
			c.re.mu.Lock()
			close(c.re.ch)
			c.re.ch = make(chan struct{})
			c.re.mu.Unlock()
		})
	})
}

// Reconnected is closed at the connection's next reconnection (never,
// unless WatchReconnects was called).
func (c *Conn) Reconnected() <-chan struct{} {
	c.re.mu.Lock()
	defer c.re.mu.Unlock()
	if c.re.ch == nil {
		return nil
	}
	return c.re.ch
}

// follow hands the records of key's line and end subjects to out, in
// order, from the first, until done closes or ctx ends. Its ordered
// consumer is made again after each reconnection, from the record after
// the last one handed over, and after it fails. The first is made before
// follow returns (its error is follow's); close stop and wait for the
// returned channel to end it.
func (c *Conn) follow(ctx context.Context, key string, out chan<- jetstream.Msg, stop <-chan struct{}) (<-chan struct{}, error) {
	subjects := []string{c.subject(key, TypeLine), c.subject(key, TypeEnd)}
	open := func(after uint64) (jetstream.MessagesContext, error) {
		cfg := jetstream.OrderedConsumerConfig{FilterSubjects: subjects, DeliverPolicy: jetstream.DeliverAllPolicy}
		if after > 0 {
			cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
		}
		cons, err := c.JS.OrderedConsumer(ctx, c.Root.ResultStream(), cfg)
		if err != nil {
			return nil, err
		}
		return cons.Messages()
	}
	re := c.Reconnected()
	it, err := open(0)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last uint64
		for {
			// Stopped on a reconnection, so that Next returns and the
			// consumer is made again.
			watched := make(chan struct{})
			ended := make(chan struct{})
			go func() {
				defer close(watched)
				select {
				case <-re:
					it.Stop()
				case <-stop:
					it.Stop()
				case <-ctx.Done():
					it.Stop()
				case <-ended:
				}
			}()
			for {
				m, err := it.Next()
				if err != nil {
					break
				}
				select {
				case out <- m:
					if meta, err := m.Metadata(); err == nil {
						last = meta.Sequence.Stream
					}
				case <-stop:
				case <-ctx.Done():
				}
			}
			it.Stop()
			close(ended)
			<-watched
			for {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				re = c.Reconnected()
				if it, err = open(last); err == nil {
					break
				}
				if !backoff.Sleep(ctx, 100*time.Millisecond) {
					return
				}
			}
		}
	}()
	return done, nil
}
