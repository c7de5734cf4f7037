package steps

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/naming"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Retention of the step streams.
const (
	// dedupeWindow is how long a Nats-Msg-Id is remembered: a step
	// offered again (a successor's relay) or a record published twice
	// within it is stored once. Longer than any step should last.
	dedupeWindow = 24 * time.Hour
	// resultsMaxAge bounds what the results stream keeps (every line of
	// every remote step): a week for people to look back.
	resultsMaxAge = 7 * 24 * time.Hour
	// maxAckPendingPerLane bounds the steps of one lane that agents hold
	// unacknowledged at once; each agent holds at most its slots.
	maxAckPendingPerLane = 1024
)

// DialOptions say how to reach a hub.
type DialOptions struct {
	// URL is the hub's client URL (nats://host:port, tls://…).
	URL string
	// Creds is the nkey seed file the hub generated (its data
	// directory's credentials); empty: connect without (an anonymous
	// loopback hub).
	Creds string
	// Name is the connection's name in the hub's monitoring.
	Name string
	// Ping is the keepalive interval (see hubconn.Options.Ping).
	Ping time.Duration
}

func (o DialOptions) options() hubconn.Options {
	return hubconn.Options{URL: o.URL, Credentials: o.Creds, Name: o.Name, Ping: o.Ping}
}

// Conn is a connection to a root's streams on a hub.
type Conn struct {
	NC   *nats.Conn
	JS   jetstream.JetStream
	Root naming.Root

	mu      sync.Mutex
	results jetstream.Stream // the result stream's handle, once looked up
	re      reconnects
}

// resultStream is the handle of the root's result stream, looked up once
// per connection: every look-up of a step's record would otherwise cost
// a round trip to the hub more.
func (c *Conn) resultStream(ctx context.Context) (jetstream.Stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.results != nil {
		return c.results, nil
	}
	s, err := c.JS.Stream(ctx, c.Root.ResultStream())
	if err != nil {
		return nil, err
	}
	c.results = s
	return s, nil
}

// DialWait connects to the hub for root, the way every client of a hub
// does (hub/hubconn: it reconnects for ever, so a hub that restarts,
// nothing acknowledged lost, is found again), and waits for a hub that is
// down until ctx ends (hubconn.DialWait); waiting, if not nil, hears the
// first failure once.
func DialWait(ctx context.Context, o DialOptions, root naming.Root, waiting func(error)) (*Conn, error) {
	c, err := hubconn.DialWait(ctx, o.options(), waiting)
	if err != nil {
		return nil, err
	}
	return &Conn{NC: c.NC, JS: c.JS, Root: root}, nil
}

// Close drains nothing: what matters was published synchronously.
func (c *Conn) Close() { c.NC.Close() }

// EnsureStreams creates the root's step and result streams unless they
// exist: both file-stored (the hub fsyncs every write), the steps a
// work queue, the results kept a week, both with the dedupe window.
// Streams that exist are left as they are: every relay calls this, and
// a lookup costs the hub no write.
func (c *Conn) EnsureStreams(ctx context.Context) error {
	for _, cfg := range []jetstream.StreamConfig{{
		Name: c.Root.StepStream(), Subjects: []string{c.Root.StepSubjects()},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: dedupeWindow,
	}, {
		Name: c.Root.ResultStream(), Subjects: []string{c.Root.ResultSubjects()},
		Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Duplicates: dedupeWindow, MaxAge: resultsMaxAge,
	}} {
		if _, err := c.JS.Stream(ctx, cfg.Name); err == nil {
			continue
		} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return err
		}
		if _, err := c.JS.CreateOrUpdateStream(ctx, cfg); err != nil {
			return err
		}
	}
	return nil
}

// LaneConsumer is the durable pull consumer the agents of lane share:
// explicit acknowledgement, redelivered ackWait after the last sign of
// life of the agent holding it, never given up.
func (c *Conn) LaneConsumer(ctx context.Context, lane string, ackWait time.Duration) (jetstream.Consumer, error) {
	if err := naming.ValidToken(lane); err != nil {
		return nil, err
	}
	return c.JS.CreateOrUpdateConsumer(ctx, c.Root.StepStream(), jetstream.ConsumerConfig{
		Durable: "lane-" + lane, FilterSubject: c.Root.StepSubject(lane),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1, MaxAckPending: maxAckPendingPerLane,
	})
}

// Subject of a step's records of type typ.
func (c *Conn) subject(key, typ string) string {
	switch typ {
	case TypeEnd:
		return c.Root.ResultSubject(key + suffixEnd)
	case TypeDispatch, TypeClosed:
		return c.Root.ResultSubject(key + suffixDispatch)
	case TypeStop:
		return c.Root.ResultSubject(key + suffixStop)
	case TypeClaim:
		return c.Root.ResultSubject(key + suffixClaim)
	}
	return c.Root.ResultSubject(key)
}

// Publish stores a record and waits for the hub's acknowledgement.
func (c *Conn) Publish(ctx context.Context, key string, r Record) error {
	r.V = Version
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.JS.Publish(ctx, c.subject(key, r.Type), data, jetstream.WithMsgID(recordMsgID(key, r)))
	return err
}

// PublishAsync stores a record without waiting (output lines); a later
// Publish on the same connection is stored after it.
func (c *Conn) PublishAsync(key string, r Record) error {
	r.V = Version
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = c.JS.PublishAsync(c.subject(key, r.Type), data, jetstream.WithMsgID(recordMsgID(key, r)))
	return err
}

// Last returns the newest record of the step's subject for typ, or nil
// when there is none.
func (c *Conn) Last(ctx context.Context, key, typ string) (*Record, error) {
	s, err := c.resultStream(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.GetLastMsgForSubject(ctx, c.subject(key, typ))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(m.Data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Offer puts step on its lane's work queue, deduplicated by its
// dispatch (StepMsgID).
func (c *Conn) Offer(ctx context.Context, s Step) error {
	f, err := c.offerAsync(s)
	if err != nil {
		return err
	}
	return acked(ctx, f)
}

// offerAsync is Offer without waiting for the hub's acknowledgement.
func (c *Conn) offerAsync(s Step) (jetstream.PubAckFuture, error) {
	if err := naming.ValidToken(s.Lane); err != nil {
		return nil, err
	}
	s.V = Version
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return c.JS.PublishAsync(c.Root.StepSubject(s.Lane), data, jetstream.WithMsgID(StepMsgID(s.Key, s.Dispatch)))
}

// publishAsync is Publish without waiting for the hub's acknowledgement.
func (c *Conn) publishAsync(key string, r Record) (jetstream.PubAckFuture, error) {
	r.V = Version
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return c.JS.PublishAsync(c.subject(key, r.Type), data, jetstream.WithMsgID(recordMsgID(key, r)))
}

// acked waits for the hub's acknowledgement of f (its publish timeout
// bounds it).
func acked(ctx context.Context, f jetstream.PubAckFuture) error {
	select {
	case <-f.Ok():
		return nil
	case err := <-f.Err():
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StopSubject is where the relay asks the agent running key's step to
// stop it; agents subscribe to it while they run the step.
func (c *Conn) StopSubject(key string) string { return c.subject(key, TypeStop) }
