package leader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/daokit/daokit/hub/mirror"
)

// retryBase and retryMax bound the backoff of an append that waits out
// an outage.
const (
	retryBase = 50 * time.Millisecond
	retryMax  = time.Second
)

// errLapsed is the lease lapsed on this host's clock: nothing is
// published until a renewal says whether it is still held.
var errLapsed = errors.New("the lease lapsed before it could be renewed")

// Append publishes lines (whole events.jsonl lines), one message per
// line, the same bytes, each expecting the stream's last sequence to be
// the previous one's: the fence. It returns once the hub holds them all
// (ledger.Replica: the store writes them after), ErrDeposed once another
// leads the root, or an *OutageError if the hub stayed away until the
// controller stopped waiting (see StopWaiting).
func (l *Leader) Append(lines []byte) error {
	msgs := splitLines(lines)
	wait := retryBase
	for {
		n, err := l.publish(msgs)
		msgs = msgs[n:]
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrDeposed) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-l.deposed:
			t.Stop()
			return ErrDeposed
		case <-l.giveUp:
			t.Stop()
			return &OutageError{Err: err}
		case <-t.C:
		}
		wait = min(2*wait, retryMax)
	}
}

// publish publishes msgs pipelined and returns how many the hub holds.
func (l *Leader) publish(msgs [][]byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.armed {
		return 0, errors.New("leader: append before Reconcile")
	}
	return l.publishLocked(msgs)
}

// publishLocked is publish; the caller holds mu.
func (l *Leader) publishLocked(msgs [][]byte) (int, error) {
	if l.isDeposed() {
		return 0, ErrDeposed
	}
	if time.Now().UnixNano() > l.deadline.Load() {
		return 0, errLapsed
	}
	held := 0
	if l.dirty {
		n, err := l.resync(msgs)
		if err != nil {
			return 0, err
		}
		held, msgs = n, msgs[n:]
	}
	if len(msgs) > 1 {
		n, err := l.publishBatches(msgs)
		return held + n, err
	}
	subject := l.names.LedgerSubject()
	futures := make([]jetstream.PubAckFuture, 0, len(msgs))
	var err error
	for i, m := range msgs {
		var f jetstream.PubAckFuture
		f, err = l.js.PublishMsgAsync(&nats.Msg{Subject: subject, Data: m}, jetstream.WithExpectLastSequence(l.last+uint64(i)))
		if err != nil {
			break
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case ack := <-f.Ok():
			if err == nil && ack.Sequence == l.last+1 {
				l.last++
				held++
				continue
			}
		case ferr := <-f.Err():
			if err == nil {
				err = ferr
			}
		}
		// What the hub holds after a failure is read back, not guessed
		// (a timed-out publish may be stored).
		l.dirty = true
		if err == nil {
			err = errors.New("ledger stream: an acknowledgement out of order")
		}
	}
	if err != nil {
		// A refusal (wrongSequence) is another leader's write or our own
		// timed-out publish that landed: the next try's resync reads the
		// stream and says which, before anything else is sent.
		l.dirty = true
		return held, err
	}
	return held, nil
}

// maxBatch is the most lines one atomic batch carries (the hub's limit
// is 1,000 messages).
const maxBatch = 500

// publishBatches publishes msgs as atomic batches of up to maxBatch
// messages, the first of each expecting the stream's last sequence: the
// hub stores a batch whole or not at all and syncs it once, where
// messages published one by one cost a sync each. The caller holds mu.
func (l *Leader) publishBatches(msgs [][]byte) (int, error) {
	held := 0
	for len(msgs) > 0 {
		part := msgs[:min(len(msgs), maxBatch)]
		if err := l.publishBatch(part); err != nil {
			l.dirty = true
			return held, err
		}
		l.last += uint64(len(part))
		held += len(part)
		msgs = msgs[len(part):]
	}
	return held, nil
}

func (l *Leader) publishBatch(msgs [][]byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	b, err := jetstreamext.NewBatchPublisher(l.js)
	if err != nil {
		return err
	}
	subject := l.names.LedgerSubject()
	last := len(msgs) - 1
	for i, m := range msgs[:last] {
		var opts []jetstreamext.BatchMsgOpt
		if i == 0 {
			opts = append(opts, jetstreamext.WithBatchExpectLastSequence(l.last))
		}
		if err := b.Add(subject, m, opts...); err != nil {
			if !b.IsClosed() {
				_ = b.Discard()
			}
			return err
		}
	}
	var opts []jetstreamext.BatchMsgOpt
	if last == 0 {
		opts = append(opts, jetstreamext.WithBatchExpectLastSequence(l.last))
	}
	ack, err := b.Commit(ctx, subject, msgs[last], opts...)
	if err != nil {
		if !b.IsClosed() {
			_ = b.Discard()
		}
		return err
	}
	if ack.Sequence != l.last+uint64(len(msgs)) {
		return fmt.Errorf("ledger stream: batch acknowledged at %d, want %d", ack.Sequence, l.last+uint64(len(msgs)))
	}
	return nil
}

// resync reads what the stream holds past l.last: messages that are the
// first of msgs (our own publishes that landed although their answer was
// lost) are counted as held; anything else is another leader's, and
// this one is deposed. The caller holds mu.
func (l *Leader) resync(msgs [][]byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
	defer cancel()
	last, err := mirror.LastSequence(ctx, l.stream)
	if err != nil {
		return 0, err
	}
	if last < l.last {
		l.depose(fmt.Sprintf("the stream ends at %d before this leader's %d", last, l.last))
		return 0, ErrDeposed
	}
	n := 0
	for seq := l.last + 1; seq <= last; seq++ {
		m, err := l.stream.GetMsg(ctx, seq)
		if err != nil {
			return 0, err
		}
		if n >= len(msgs) || !bytes.Equal(m.Data, msgs[n]) {
			l.depose(fmt.Sprintf("message %d of the stream is another leader's", seq))
			return 0, ErrDeposed
		}
		n++
	}
	l.last, l.dirty = last, false
	return n, nil
}

// splitLines cuts lines after each newline.
func splitLines(lines []byte) [][]byte {
	var out [][]byte
	for len(lines) > 0 {
		i := bytes.IndexByte(lines, '\n')
		if i < 0 {
			out = append(out, lines)
			break
		}
		out = append(out, lines[:i+1])
		lines = lines[i+1:]
	}
	return out
}
