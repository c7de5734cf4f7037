package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub/naming"
)

// fetchBatch is how many messages one read of the stream asks for, and
// so how many lines share one append and fsync.
const fetchBatch = 512

// ErrNotThisRoot refuses a folder whose events.jsonl is not a prefix of
// the root's stream: another root's folder, or a stream that was made
// anew. Nothing is written to it.
var ErrNotThisRoot = errors.New("the folder's events.jsonl is not this root's ledger stream")

// LedgerStream returns the root's ledger stream, or an error wrapping
// jetstream.ErrStreamNotFound when no leader made it yet.
func LedgerStream(ctx context.Context, js jetstream.JetStream, names naming.Root) (jetstream.Stream, error) {
	return js.Stream(ctx, names.LedgerStream())
}

// LastSequence is the stream's last sequence, checked to hold every
// message from 1 on: the ledger stream is never trimmed, so that line n
// is message n.
func LastSequence(ctx context.Context, s jetstream.Stream) (uint64, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	st := info.State
	if st.Msgs > 0 && (st.FirstSeq != 1 || st.Msgs != st.LastSeq) {
		return 0, fmt.Errorf("ledger stream %s holds messages %d to %d of %d: it was trimmed", info.Config.Name, st.FirstSeq, st.LastSeq, st.Msgs)
	}
	return st.LastSeq, nil
}

// ReadLines calls each with the stream's messages from sequence from to
// to (inclusive), in order, a batch at a time: the data of each batch's
// messages concatenated, and the sequence of its last one. It reads
// through an ordered consumer, which the hub forgets when it ends.
func ReadLines(ctx context.Context, s jetstream.Stream, from, to uint64, each func(lines []byte, last uint64) error) error {
	if from > to {
		return nil
	}
	c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: from})
	if err != nil {
		return err
	}
	next := from
	for next <= to {
		want := int(min(uint64(fetchBatch), to-next+1))
		batch, err := c.Fetch(want, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return err
		}
		var lines []byte
		for m := range batch.Messages() {
			meta, err := m.Metadata()
			if err != nil {
				return err
			}
			if meta.Sequence.Stream != next {
				return fmt.Errorf("ledger stream: message %d where %d was due", meta.Sequence.Stream, next)
			}
			lines = append(lines, m.Data()...)
			next++
		}
		if err := batch.Error(); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(lines) > 0 {
			if err := each(lines, next-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckPrefix refuses (ErrNotThisRoot) a folder whose line n is not the
// stream's message n; n is the number of the folder's whole lines and
// last the last of them. It reads one message.
func CheckPrefix(ctx context.Context, s jetstream.Stream, n int, last []byte) error {
	if n == 0 {
		return nil
	}
	m, err := s.GetMsg(ctx, uint64(n))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("%w: the folder has %d lines, the stream fewer", ErrNotThisRoot, n)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(m.Data, last) {
		return fmt.Errorf("%w: line %d differs from message %d", ErrNotThisRoot, n, n)
	}
	return nil
}
