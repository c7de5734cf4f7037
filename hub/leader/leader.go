package leader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/hub/naming"
)

// DefaultTTL is the lease's TTL when Options.TTL is 0: a leader that
// stops renewing is replaced about this long after its last renewal.
const DefaultTTL = 10 * time.Second

// MinTTL is the shortest TTL: the hub expires keys about once a second.
const MinTTL = time.Second

// Options configure Campaign.
type Options struct {
	mirror.Hub
	// Root is the root id (hub/naming).
	Root string
	// TTL is the lease's time to live; default DefaultTTL.
	TTL time.Duration
	// Holder says who holds the lease (host, pid, folder), for people
	// reading the bucket and for the elected record.
	Holder string
	// Logger hears renewals that failed and the deposition.
	Logger *slog.Logger
}

// Leader is a controller's hold on its root: the lease, the fenced
// appends and the documents' publication. Its methods are safe for
// concurrent use.
type Leader struct {
	nc    *nats.Conn
	js    jetstream.JetStream
	names naming.Root
	ttl   time.Duration
	log   *slog.Logger
	value []byte

	stream jetstream.Stream
	lease  jetstream.KeyValue
	docs   jetstream.KeyValue

	// mu guards the stream position; appends hold it for their whole
	// publication (the store calls them in order), which can wait out a
	// lost acknowledgement for the hub's request timeout.
	mu sync.Mutex
	// leaseMu guards the lease's revision alone, so that a renewal never
	// waits behind a publication: one held past the TTL would let the
	// lease lapse, and a standby take the root from a live leader after
	// a hub restart. Taken before mu, never after.
	leaseMu sync.Mutex
	rev     uint64 // the lease's revision this leader last wrote
	// deadline is when the lease lapses on this host's clock (Unix
	// nanoseconds): publications read it without a lock.
	deadline atomic.Int64
	last     uint64 // the stream's last sequence, as this leader wrote it
	dirty    bool   // an append failed midway: read the stream before the next
	armed    bool   // Reconcile ran: appends are published
	term     uint64 // the lease revision the campaign won

	deposedOnce sync.Once
	deposed     chan struct{}

	docMu   sync.Mutex
	docNext map[string][]byte // the newest unpublished version of each document
	docRev  map[string]uint64 // each key's revision as this leader last wrote or read it
	docKick chan struct{}

	stop     chan struct{}
	stopOnce sync.Once
	giveUp   chan struct{} // closed when appends stop waiting out an outage
	giveOnce sync.Once
	wg       sync.WaitGroup
}

// leaseValue is what the lease key holds.
type leaseValue struct {
	Holder string `json:"holder"`
	Since  string `json:"since"`
}

// Holder reads who holds a lease from the lease key's value (as
// Campaign writes it); the value itself when it is not one.
func Holder(value []byte) string {
	var v leaseValue
	if json.Unmarshal(value, &v) != nil || v.Holder == "" {
		return string(value)
	}
	return v.Holder
}

// Campaign connects to the hub, makes the root's ledger stream and
// buckets if needed, and campaigns for the root's lease until it holds
// it or ctx ends (a standby: another controller leads the root). Once it
// returns, the caller must Reconcile its folder before any append, and
// Close the leader when it stops.
func Campaign(ctx context.Context, o Options) (*Leader, error) {
	names, err := naming.ForRoot(o.Root)
	if err != nil {
		return nil, err
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.TTL < MinTTL {
		return nil, fmt.Errorf("lease TTL %v: want at least %v", o.TTL, MinTTL)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Name == "" {
		o.Name = "daokit leader " + o.Root
	}
	// A hub that is down is waited for, as a lease held by another is: a
	// controller started during a hub outage leads once the hub is back.
	conn, err := hubconn.DialWait(ctx, o.Hub, func(err error) {
		o.Logger.Warn("waiting for the hub", "hub", o.Hub.URL, "err", err)
	})
	if err != nil {
		return nil, err
	}
	nc, js := conn.NC, conn.JS
	l := &Leader{nc: nc, js: js, names: names, ttl: o.TTL, log: o.Logger, deposed: make(chan struct{}),
		docNext: map[string][]byte{}, docRev: map[string]uint64{}, docKick: make(chan struct{}, 1),
		stop: make(chan struct{}), giveUp: make(chan struct{})}
	l.value, _ = json.Marshal(leaseValue{Holder: o.Holder, Since: time.Now().UTC().Format(time.RFC3339Nano)})
	if err := l.ensureWaiting(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	if err := l.campaign(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	l.wg.Add(2)
	go l.renew()
	go l.publishDocuments()
	return l, nil
}

// ensureWaiting is ensure, tried again every second while the hub does
// not answer (a hub restarting, or too busy to answer within the
// request timeout): a controller started during a hub outage waits for
// the hub as one already leading does, where it ended before. A refusal
// (a key without the right) ends it at once.
func (l *Leader) ensureWaiting(ctx context.Context) error {
	for {
		err := l.ensure(ctx)
		// A refused request goes unanswered too; the hub says why on the
		// connection.
		if err == nil || !unanswered(err) || errors.Is(l.nc.LastError(), nats.ErrPermissionViolation) || ctx.Err() != nil {
			return err
		}
		l.log.Debug("the hub did not answer; asking again", "err", err)
		if !backoff.Sleep(ctx, time.Second) {
			return err
		}
	}
}

// unanswered reports an error of a request the hub did not answer, as
// opposed to one it refused.
func unanswered(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrConnectionReconnecting)
}

// ensure makes the root's ledger stream and its two buckets, or finds
// them. The stream keeps every message (no limits): line n is message n.
func (l *Leader) ensure(ctx context.Context) error {
	s, err := l.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: l.names.LedgerStream(), Subjects: []string{l.names.LedgerSubject()},
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardNew,
		MaxMsgSize: -1, AllowAtomicPublish: true, AllowDirect: true,
	})
	if err != nil {
		return fmt.Errorf("ledger stream %s: %w", l.names.LedgerStream(), err)
	}
	l.stream = s
	if l.lease, err = l.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: l.names.LeaseBucket(), TTL: l.ttl, History: 1, Storage: jetstream.FileStorage,
	}); err != nil {
		return fmt.Errorf("lease bucket %s: %w", l.names.LeaseBucket(), err)
	}
	if l.docs, err = l.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: l.names.DocumentBucket(), History: 1, Storage: jetstream.FileStorage,
	}); err != nil {
		return fmt.Errorf("document bucket %s: %w", l.names.DocumentBucket(), err)
	}
	return nil
}

// campaign creates the lease key, trying again every TTL/4 while another
// holds it (the hub removes it once its holder stopped renewing).
func (l *Leader) campaign(ctx context.Context) error {
	every := min(l.ttl/4, 250*time.Millisecond)
	for {
		start := time.Now()
		rev, err := l.lease.Create(ctx, naming.LeaseKey, l.value)
		if err == nil {
			l.leaseMu.Lock()
			l.rev, l.term = rev, rev
			l.deadline.Store(start.Add(l.ttl).UnixNano())
			l.leaseMu.Unlock()
			return nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			l.log.Debug("campaign: the hub did not answer", "err", err)
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Term is the lease revision this leader won: it grows with every
// election of the root.
func (l *Leader) Term() uint64 { return l.term }

// Deposed is closed once this leader learns another took the root.
func (l *Leader) Deposed() <-chan struct{} { return l.deposed }

// depose records that another took the root; every later write is
// refused. The caller holds mu or leaseMu.
func (l *Leader) depose(why string) {
	l.deposedOnce.Do(func() {
		l.log.Warn("deposed: another controller leads the root now", "root", l.names.ID(), "why", why)
		close(l.deposed)
	})
}

func (l *Leader) isDeposed() bool {
	select {
	case <-l.deposed:
		return true
	default:
		return false
	}
}

// renew updates the lease every TTL/3 with the revision last written.
// A mismatch means the key expired or another holds it: the stream says
// which (see recampaign).
func (l *Leader) renew() {
	defer l.wg.Done()
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.deposed:
			return
		case <-t.C:
		}
		l.renewOnce()
	}
}

func (l *Leader) renewOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	l.leaseMu.Lock()
	rev := l.rev
	l.leaseMu.Unlock()
	start := time.Now()
	nrev, err := l.lease.Update(ctx, naming.LeaseKey, l.value, rev)
	if err == nil {
		l.leaseMu.Lock()
		l.rev = nrev
		l.deadline.Store(start.Add(l.ttl).UnixNano())
		l.leaseMu.Unlock()
		return
	}
	if !wrongSequence(err) {
		l.log.Debug("lease renewal: the hub did not answer", "err", err)
		return
	}
	l.recampaign(ctx)
}

// recampaign handles a renewal the hub refused. If another holds the
// key, this leader is deposed. If the key expired and nobody took it (a
// hub outage longer than the TTL, or a pause nobody used), this leader
// creates it again and keeps leading only if the stream is still where
// it left it: nobody wrote in between.
func (l *Leader) recampaign(ctx context.Context) {
	l.leaseMu.Lock()
	defer l.leaseMu.Unlock()
	if e, err := l.lease.Get(ctx, naming.LeaseKey); err == nil {
		switch {
		case bytes.Equal(e.Value(), l.value):
			// Our own renewal landed though its answer was lost (the
			// value names this leader alone): carry on from it.
			l.rev = e.Revision()
		case e.Revision() != l.rev:
			l.depose(fmt.Sprintf("the lease is at revision %d, held by %s", e.Revision(), e.Value()))
		}
		return
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return // the next tick asks again
	}
	start := time.Now()
	rev, err := l.lease.Create(ctx, naming.LeaseKey, l.value)
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			l.depose("another controller took the lapsed lease")
		}
		return
	}
	// The lapsed lease is this leader's again; it keeps leading only if
	// nobody wrote meanwhile (the position is mu's: leaseMu, then mu).
	l.mu.Lock()
	own := l.last
	l.mu.Unlock()
	last, err := mirror.LastSequence(ctx, l.stream)
	if err != nil || last != own {
		l.depose(fmt.Sprintf("the stream moved to %d past this leader's %d", last, own))
		return
	}
	l.rev = rev
	l.deadline.Store(start.Add(l.ttl).UnixNano())
}

// leaseTaken reports whether the lease key holds another leader's value
// (a key that expired with nobody taking it is not taken: the renewer
// takes it back); an error when the hub did not answer. The caller
// holds mu.
func (l *Leader) leaseTaken(ctx context.Context) (bool, error) {
	e, err := l.lease.Get(ctx, naming.LeaseKey)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !bytes.Equal(e.Value(), l.value), nil
}

// Close stops renewing, publishes the documents still waiting and
// resigns the lease (deletes the key at the revision this leader holds),
// so that a successor need not wait for the TTL. A deposed leader only
// closes its connection.
func (l *Leader) Close() {
	l.stopOnce.Do(func() {
		l.giveOnce.Do(func() { close(l.giveUp) })
		close(l.stop)
		l.wg.Wait()
		if !l.isDeposed() {
			l.flushDocuments()
			ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
			l.leaseMu.Lock()
			_ = l.lease.Delete(ctx, naming.LeaseKey, jetstream.LastRevision(l.rev))
			l.leaseMu.Unlock()
			cancel()
		}
		l.nc.Close()
	})
}

// StopWaiting makes appends that wait out an outage give up after
// within (the controller calls it when it stops, as it bounds its held
// writes), so that an unreachable hub cannot keep it from ending.
func (l *Leader) StopWaiting(within time.Duration) {
	time.AfterFunc(within, func() { l.giveOnce.Do(func() { close(l.giveUp) }) })
}

// JetStream is the leader's connection to the hub, for the root's other
// traffic while it leads (the requests of remote people, hub/remote).
func (l *Leader) JetStream() jetstream.JetStream { return l.js }

// Names are the names of the root it leads.
func (l *Leader) Names() naming.Root { return l.names }
