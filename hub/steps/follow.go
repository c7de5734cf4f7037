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

// followIdle is how long the hub keeps a relay's consumer once nobody
// pulls from it (its relay gone): a relay makes one per step, and one per
// reconnection.
const followIdle = time.Minute

// follow hands the records of key's line and end subjects to out, in
// order, from the first, until done closes or ctx ends. Its consumer is
// made again after each reconnection, from the record after the last one
// handed over, and after it fails or skips a record (a pull's messages
// lost in flight). The first is made before follow returns (its error is
// follow's); close stop and wait for the returned channel to end it.
//
// The consumer is a plain ephemeral one, resumed here, not the client
// library's ordered consumer: that one remakes itself after a failure
// holding a lock that its Stop needs, for as long as the hub does not
// answer (seconds, through a restart), and a relay at its step's end
// waited for it, silent, until its controller judged it stale.
func (c *Conn) follow(ctx context.Context, key string, out chan<- jetstream.Msg, stop <-chan struct{}) (<-chan struct{}, error) {
	cfg := jetstream.ConsumerConfig{
		FilterSubjects: []string{c.subject(key, TypeLine), c.subject(key, TypeEnd)},
		AckPolicy:      jetstream.AckNonePolicy, MemoryStorage: true, Replicas: 1, InactiveThreshold: followIdle,
	}
	open := func(after uint64) (jetstream.MessagesContext, error) {
		cfg := cfg
		cfg.DeliverPolicy = jetstream.DeliverAllPolicy
		if after > 0 {
			cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
		}
		cons, err := c.JS.CreateConsumer(ctx, c.Root.ResultStream(), cfg)
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
		var last uint64 // the stream sequence of the last record handed over
		for {
			// Stopped on a reconnection, so that Next returns and the
			// consumer is made again.
			watched := make(chan struct{})
			ended := make(chan struct{})
			go func() {
				defer close(watched)
				select {
				case <-re:
				case <-stop:
				case <-ctx.Done():
				case <-ended:
				}
				it.Stop()
			}()
			var delivered uint64 // the consumer's sequence of its last record
			for {
				m, err := it.Next()
				if err != nil {
					break
				}
				meta, err := m.Metadata()
				if err != nil || meta.Sequence.Consumer != delivered+1 {
					break // a record skipped: made again from the last one
				}
				delivered = meta.Sequence.Consumer
				select {
				case out <- m:
					last = meta.Sequence.Stream
				case <-stop:
				case <-ctx.Done():
				}
			}
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
