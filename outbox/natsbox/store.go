package natsbox

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/outbox"
)

// Options say which hub and which root's outbox to open.
type Options struct {
	// URL is the hub's client address (nats://host:port, tls://…).
	URL string
	// Credentials is the nkey seed file the hub generated (admin.nk in
	// its data directory); empty: connect without one (a hub started
	// with --anonymous on loopback).
	Credentials string
	// Root is the root id the outbox belongs to (hub/naming).
	Root string
	// ReadOnly refuses every Apply with outbox.ErrReadOnly (as does
	// outbox.WorkerEnv in the environment).
	ReadOnly bool
	// WakeInterval bounds Wait; default outbox.DefaultWakeInterval.
	WakeInterval time.Duration
	// Timeout bounds each request to the hub; default 5 s.
	Timeout time.Duration
}

// Store is the outbox of one root on a hub. It implements
// outbox.Backend; every method is safe for concurrent use, and any number
// of Stores on any hosts may share one outbox.
type Store struct {
	nc       *nats.Conn
	js       jetstream.JetStream
	stream   jetstream.Stream
	names    naming.Root
	readOnly bool
	wake     time.Duration
	// where names the outbox in errors: the hub's URL and the stream.
	where string

	// mu guards st and is held while reading the stream into it.
	mu sync.Mutex
	st *state

	sub    *nats.Subscription
	wakeMu sync.Mutex
	wakeCh chan struct{}
}

// Open connects to the hub and reads the root's outbox. Like
// outbox.OpenSQLite it never makes an outbox: a root whose outbox stream
// is missing (never made, or lost with the hub's data) is an
// *outbox.OpenError (ErrMissing), and only Init makes one, so a lost
// outbox is never silently replaced by an empty one.
func Open(ctx context.Context, o Options) (*Store, error) {
	s, err := connect(o)
	if err != nil {
		return nil, err
	}
	if err := s.open(ctx); err != nil {
		s.nc.Close()
		return nil, err
	}
	return s, nil
}

// Init makes the root's outbox stream when there is none (created true)
// and checks the one that is there: `daokit outbox init` for the hub.
func Init(ctx context.Context, o Options) (created bool, err error) {
	o.ReadOnly = false
	s, err := connect(o)
	if err != nil {
		return false, err
	}
	defer s.nc.Close()
	if err := s.open(ctx); err == nil {
		return false, nil
	} else if !errors.Is(err, outbox.ErrMissing) {
		return false, err
	}
	if _, err := s.js.CreateStream(ctx, s.streamConfig()); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return false, fmt.Errorf("outbox on the hub: make stream %s: %w", s.names.OutboxStream(), err)
	}
	return true, s.open(ctx)
}

// Where names the outbox in messages: the hub and the stream.
func Where(o Options) string {
	names, err := naming.ForRoot(o.Root)
	if err != nil {
		return o.URL
	}
	return o.URL + " " + names.OutboxStream()
}

func connect(o Options) (*Store, error) {
	names, err := naming.ForRoot(o.Root)
	if err != nil {
		return nil, fmt.Errorf("outbox on the hub: %w", err)
	}
	c, err := hubconn.Dial(hubconn.Options{URL: o.URL, Credentials: o.Credentials, Name: "daokit outbox " + o.Root, Timeout: o.Timeout})
	if err != nil {
		return nil, fmt.Errorf("outbox on the %w", err)
	}
	nc, js := c.NC, c.JS
	s := &Store{nc: nc, js: js, names: names, where: Where(o), wake: o.WakeInterval, wakeCh: make(chan struct{}), st: newState()}
	s.readOnly = o.ReadOnly || os.Getenv(outbox.WorkerEnv) != ""
	if s.wake <= 0 {
		s.wake = outbox.DefaultWakeInterval
	}
	return s, nil
}

// streamConfig is the outbox stream: a file store kept whole (no limits,
// no message ever removed, or a cursor could point at nothing), atomic
// batches, and direct gets for reading it back.
func (s *Store) streamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name: s.names.OutboxStream(), Subjects: []string{s.names.OutboxSubjects()},
		Storage: jetstream.FileStorage, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardNew,
		AllowAtomicPublish: true, AllowDirect: true, DenyDelete: true, DenyPurge: true,
	}
}

// open finds the stream, refusing one that is not an outbox, subscribes
// to its wake-ups and reads it.
func (s *Store) open(ctx context.Context) error {
	name := s.names.OutboxStream()
	st, err := s.js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return &outbox.OpenError{Path: s.where, Err: outbox.ErrMissing}
	}
	if err != nil {
		return fmt.Errorf("outbox on the hub: stream %s: %w", name, err)
	}
	if c := st.CachedInfo().Config; !c.AllowAtomicPublish || !c.AllowDirect {
		return &outbox.OpenError{Path: s.where, Err: outbox.ErrCorrupt, Detail: "not an outbox stream (no atomic batches or direct gets)"}
	}
	s.stream = st
	// Every message on the outbox's subjects wakes Wait; what is
	// committed is then read from the stream.
	s.sub, err = s.nc.Subscribe(s.names.OutboxSubjects(), func(*nats.Msg) { s.fire() })
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncLocked(ctx)
}

// Close ends the connection.
func (s *Store) Close() error {
	if s.sub != nil {
		_ = s.sub.Unsubscribe()
	}
	s.nc.Close()
	return nil
}

func (s *Store) subject(kind, key string) string {
	subj := "daokit." + s.names.ID() + ".outbox." + kind
	if key != "" {
		subj += "." + key
	}
	return subj
}

// token turns any string into one subject token: a hash, collisions of
// which would need 2^64 tries; the message itself holds the string.
func token(parts ...string) string {
	h := fnv.New128a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// syncLocked reads the stream up to its last sequence into the state.
func (s *Store) syncLocked(ctx context.Context) error {
	info, err := s.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("outbox on the hub: %w", err)
	}
	return s.readToLocked(ctx, info.State.LastSeq)
}

// readToLocked reads the stream's messages after the state's up to seq.
func (s *Store) readToLocked(ctx context.Context, seq uint64) error {
	for s.st.seq < seq {
		msgs, err := jetstreamext.GetBatch(ctx, s.js, s.names.OutboxStream(), 1000, jetstreamext.GetBatchSeq(s.st.seq+1))
		if err != nil {
			return fmt.Errorf("outbox on the hub: %w", err)
		}
		before := s.st.seq
		for m, err := range msgs {
			if err != nil {
				if s.st.seq > before {
					break // read what came; the loop asks for the rest
				}
				return fmt.Errorf("outbox on the hub: read from %d: %w", before+1, err)
			}
			s.st.add(m.Sequence, m.Subject, m.Data)
		}
	}
	return nil
}

// view syncs the state and runs f on it.
func (s *Store) view(ctx context.Context, f func(*state) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.syncLocked(ctx); err != nil {
		return err
	}
	return f(s.st)
}

// Apply commits c as one atomic batch (see the package doc). A racer
// that committed first makes the batch fail on its expected last
// sequence; c is then computed again on the newer outbox.
func (s *Store) Apply(ctx context.Context, c outbox.Change) (outbox.Result, error) {
	if s.readOnly {
		return outbox.Result{}, outbox.ErrReadOnly
	}
	if err := outbox.Validate(c); err != nil {
		return outbox.Result{}, err
	}
	for {
		res, conflict, err := s.try(ctx, c)
		if !conflict {
			return res, err
		}
		if ctx.Err() != nil {
			return outbox.Result{}, ctx.Err()
		}
	}
}

// try computes c on the state as read now and commits it expecting that
// state; conflict is true when another change came first.
func (s *Store) try(ctx context.Context, c outbox.Change) (outbox.Result, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.syncLocked(ctx); err != nil {
		return outbox.Result{}, false, err
	}
	t := newTx(s.st, c, time.Now().UTC().UnixNano())
	stale, err := t.run(c)
	if err != nil || stale || t.res.OverLimit {
		return outbox.Result{Stale: stale, OverLimit: t.res.OverLimit}, false, err
	}
	cursor := c.Reader != "" && c.UpTo > 0
	if cursor {
		t.rec.Cursor = &cursorMove{Reader: c.Reader, UpTo: c.UpTo}
	}
	if t.rec.empty() && len(t.trigs) == 0 {
		return t.res, false, nil
	}
	parts, err := t.rec.split(s.maxRecord())
	if err != nil {
		return outbox.Result{}, false, err
	}
	var seq uint64
	var sent []stored
	if len(t.trigs) == 0 && len(parts) == 1 {
		// No trigger key to record: the change is one message, which the
		// hub stores whole or not at all by itself. An atomic batch costs
		// the hub a staging store of its own (about 15 ms here, against
		// 0.5 ms for one message), so it is kept for what needs it.
		ack, err := s.js.Publish(ctx, s.subject(kindChange, ""), parts[0], jetstream.WithExpectLastSequence(s.st.seq))
		if conflict(err) {
			return outbox.Result{}, true, nil
		}
		if err != nil {
			return outbox.Result{}, false, fmt.Errorf("outbox on the hub: commit: %w", err)
		}
		sent = []stored{{subject: s.subject(kindChange, ""), data: parts[0]}}
		seq = ack.Sequence
	} else {
		// In a batch the cursor is a message of its own, committed last.
		t.rec.Cursor = nil
		if parts, err = t.rec.split(s.maxRecord()); err != nil {
			return outbox.Result{}, false, err
		}
		if t.rec.empty() {
			parts = nil
		}
		var conflicted bool
		sent, seq, conflicted, err = s.commitBatch(ctx, parts, t.trigs, c, cursor)
		if conflicted || err != nil {
			return outbox.Result{}, conflicted, err
		}
	}
	// The hub stored what was sent right after the state it was computed
	// on (it expected that last sequence), so the state takes it as
	// sent; otherwise it reads the stream, so that the next read on this
	// Store sees the change.
	if seq == s.st.seq+uint64(len(sent)) {
		for _, m := range sent {
			s.st.add(s.st.seq+1, m.subject, m.data)
		}
		return t.res, false, nil
	}
	if err := s.readToLocked(ctx, seq); err != nil {
		return outbox.Result{}, false, err
	}
	return t.res, false, nil
}

// stored is one message of a committed change, as sent.
type stored struct {
	subject string
	data    []byte
}

// commitBatch commits a change that records trigger keys, or is too
// large for one message, as one atomic batch: the parts of the change
// record (when it did anything), one key per new
// trigger, each expecting its subject to be empty, and the reader's
// cursor, committed last. The first message expects the stream's last
// sequence to be the one the change was computed on. It returns the
// sequence of the batch's last message.
func (s *Store) commitBatch(ctx context.Context, parts [][]byte, trigs []triggerKey, c outbox.Change, cursor bool) (sent []stored, seq uint64, conflicted bool, err error) {
	type msg struct {
		subject string
		data    any
		opts    []jetstreamext.BatchMsgOpt
	}
	var msgs []msg
	for _, p := range parts {
		msgs = append(msgs, msg{subject: s.subject(kindChange, ""), data: json.RawMessage(p)})
	}
	for _, k := range trigs {
		msgs = append(msgs, msg{subject: s.subject(kindTrigger, token(k.Reader, k.Key)), data: k,
			opts: []jetstreamext.BatchMsgOpt{jetstreamext.WithBatchExpectLastSequencePerSubject(0)}})
	}
	if cursor {
		msgs = append(msgs, msg{subject: s.subject(kindCursor, token(c.Reader)), data: cursorMove{Reader: c.Reader, UpTo: c.UpTo}})
	}
	msgs[0].opts = append(msgs[0].opts, jetstreamext.WithBatchExpectLastSequence(s.st.seq))
	b, err := jetstreamext.NewBatchPublisher(s.js)
	if err != nil {
		return nil, 0, false, err
	}
	for i, m := range msgs {
		data, err := json.Marshal(m.data)
		if err != nil {
			_ = b.Discard()
			return nil, 0, false, err
		}
		sent = append(sent, stored{subject: m.subject, data: data})
		var ack *jetstreamext.BatchAck
		if i < len(msgs)-1 {
			err = b.Add(m.subject, data, m.opts...)
		} else {
			ack, err = b.Commit(ctx, m.subject, data, m.opts...)
		}
		if err != nil {
			if !b.IsClosed() {
				_ = b.Discard()
			}
			if conflict(err) {
				return nil, 0, true, nil
			}
			return nil, 0, false, fmt.Errorf("outbox on the hub: commit: %w", err)
		}
		if ack != nil {
			seq = ack.Sequence
		}
	}
	return sent, seq, false, nil
}

// maxRecord is the most a change message may hold: the hub's maximum
// payload, less room for the headers.
func (s *Store) maxRecord() int {
	return int(s.nc.MaxPayload()) - 4096
}

// conflict reports whether err is the hub refusing a batch whose
// expectations no longer hold: another change committed first.
func conflict(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
	}
	return false
}

// Events returns up to limit events after the given id.
func (s *Store) Events(ctx context.Context, after int64, limit int) ([]outbox.Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	var out []outbox.Event
	err := s.view(ctx, func(st *state) error { out = st.eventsAfter(after, limit); return nil })
	return out, err
}

// Head returns the newest event id.
func (s *Store) Head(ctx context.Context) (int64, error) {
	var n int64
	err := s.view(ctx, func(st *state) error { n = st.lastEvent; return nil })
	return n, err
}

// Cursor returns reader's cursor.
func (s *Store) Cursor(ctx context.Context, reader string) (int64, error) {
	var n int64
	err := s.view(ctx, func(st *state) error { n = st.cursors[reader]; return nil })
	return n, err
}

// Cursors returns every cursor.
func (s *Store) Cursors(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.view(ctx, func(st *state) error {
		for r, n := range st.cursors {
			out[r] = n
		}
		return nil
	})
	return out, err
}

// Triggers counts reader's recorded triggers.
func (s *Store) Triggers(ctx context.Context, reader string) (int, error) {
	var n int
	err := s.view(ctx, func(st *state) error { n = len(st.triggers[reader]); return nil })
	return n, err
}

// Issue returns one issue.
func (s *Store) Issue(ctx context.Context, id int64) (outbox.Issue, error) {
	var out outbox.Issue
	err := s.view(ctx, func(st *state) error {
		is, ok := st.issues[id]
		if !ok {
			return fmt.Errorf("%w: issue #%d", outbox.ErrNotFound, id)
		}
		out = copyIssue(is)
		return nil
	})
	return out, err
}

// List returns issues matching q, oldest first.
func (s *Store) List(ctx context.Context, q outbox.Query) ([]outbox.Issue, error) {
	var out []outbox.Issue
	err := s.view(ctx, func(st *state) error {
		for id := int64(1); id <= st.lastIssue; id++ {
			is, ok := st.issues[id]
			switch {
			case !ok,
				q.Label != "" && !is.HasLabel(q.Label),
				q.Assignee != "" && is.Assignee != q.Assignee,
				q.State == "open" && is.Closed,
				q.State == "closed" && !is.Closed:
				continue
			}
			out = append(out, copyIssue(is))
			if q.Limit > 0 && len(out) == q.Limit {
				break
			}
		}
		return nil
	})
	return out, err
}

// Comments returns an issue's comments, oldest first.
func (s *Store) Comments(ctx context.Context, issue int64) ([]outbox.Comment, error) {
	var out []outbox.Comment
	err := s.view(ctx, func(st *state) error {
		for _, id := range st.byIssue[issue] {
			out = append(out, st.comments[id])
		}
		return nil
	})
	return out, err
}

// Comment returns one comment.
func (s *Store) Comment(ctx context.Context, id int64) (outbox.Comment, error) {
	var out outbox.Comment
	err := s.view(ctx, func(st *state) error {
		c, ok := st.comments[id]
		if !ok {
			return fmt.Errorf("%w: comment %d", outbox.ErrNotFound, id)
		}
		out = c
		return nil
	})
	return out, err
}

var _ outbox.Backend = (*Store)(nil)
