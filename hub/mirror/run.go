package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sys/unix"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/naming"
)

// Options configure Run.
type Options struct {
	Hub
	// Root is the root id (hub/naming).
	Root string
	// Dir is the folder to rebuild: its state/ receives events.jsonl and
	// the documents.
	Dir string
	// Synced, if not nil, hears the stream sequence events.jsonl holds
	// after each batch it appended (and once at start): progress for a
	// caller that shows it.
	Synced func(seq uint64)
	// Logger hears retries while the hub is away; nil: discarded.
	Logger *slog.Logger
	// Waiting, if not nil, hears once that the hub is down at start and
	// Run waits for it (a person running `daokit mirror` is told).
	Waiting func(error)
}

// ErrBusy refuses a folder another mirror is writing.
var ErrBusy = errors.New("another mirror writes this folder")

// retryWait is how long Run waits before asking again a hub that did
// not answer (an outage) or a root whose leader has not made its
// stream yet.
const retryWait = 250 * time.Millisecond

// Run rebuilds o.Dir from the root's stream and document bucket and
// keeps it current until ctx ends (then it returns nil). It resumes from
// the lines the folder holds. A hub that goes away is waited for; a
// folder that is not this root's (ErrNotThisRoot) or one another mirror
// holds (ErrBusy) ends it with that error.
func Run(ctx context.Context, o Options) error {
	names, err := naming.ForRoot(o.Root)
	if err != nil {
		return err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	f, err := OpenFolder(o.Dir)
	if err != nil {
		return err
	}
	unlock, err := lockFolder(f.dir)
	if err != nil {
		return err
	}
	defer unlock()
	if o.Name == "" {
		o.Name = "daokit mirror " + o.Root
	}
	conn, err := hubconn.DialWait(ctx, o.Hub, func(err error) {
		o.Logger.Warn("waiting for the hub", "hub", o.Hub.URL, "err", err)
		if o.Waiting != nil {
			o.Waiting(err)
		}
	})
	if err != nil {
		return err
	}
	defer conn.Close()
	js := conn.JS

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	docErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := followDocuments(ctx, js, names, f, o.Logger); err != nil {
			docErr <- err
			cancel()
		}
	}()
	err = followEvents(ctx, js, names, f, o)
	cancel()
	wg.Wait()
	select {
	case derr := <-docErr:
		return derr
	default:
	}
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// lockFolder takes state/mirror.lock (flock) so that two mirrors never
// append into one folder.
func lockFolder(dir string) (func(), error) {
	lf, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", dir, ErrBusy)
		}
		return nil, err
	}
	return func() { lf.Close() }, nil
}

// followEvents appends the stream to events.jsonl from the folder's last
// line on, for as long as ctx lasts.
func followEvents(ctx context.Context, js jetstream.JetStream, names naming.Root, f *Folder, o Options) error {
	var s jetstream.Stream
	for {
		var err error
		if s, err = LedgerStream(ctx, js, names); err == nil {
			break
		}
		o.Logger.Debug("waiting for the root's ledger stream", "stream", names.LedgerStream(), "err", err)
		if !backoff.Sleep(ctx, retryWait) {
			return nil
		}
	}
	last, n, err := f.LastLine()
	if err != nil {
		return err
	}
	for {
		err := CheckPrefix(ctx, s, n, last)
		if err == nil {
			break
		}
		if errors.Is(err, ErrNotThisRoot) {
			return err
		}
		if !backoff.Sleep(ctx, retryWait) {
			return nil
		}
	}
	seq := uint64(n)
	if o.Synced != nil {
		o.Synced(seq)
	}
	for ctx.Err() == nil {
		err := follow(ctx, s, f, &seq, o.Synced)
		if ctx.Err() != nil {
			return nil
		}
		o.Logger.Debug("ledger stream interrupted; resuming", "after", seq, "err", err)
		if !backoff.Sleep(ctx, retryWait) {
			return nil
		}
	}
	return nil
}

// follow reads the stream from *seq+1 through one ordered consumer until
// ctx ends or the hub fails it.
func follow(ctx context.Context, s jetstream.Stream, f *Folder, seq *uint64, synced func(uint64)) error {
	c, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: *seq + 1})
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		batch, err := c.Fetch(fetchBatch, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return err
		}
		var lines []byte
		next := *seq + 1
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
		if len(lines) > 0 {
			if err := f.Append(lines); err != nil {
				return err
			}
			*seq = next - 1
			if synced != nil {
				synced(*seq)
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	return nil
}

// followDocuments replaces each document as the bucket changes, for as
// long as ctx lasts. Only an unwritable folder ends it with an error.
func followDocuments(ctx context.Context, js jetstream.JetStream, names naming.Root, f *Folder, log *slog.Logger) error {
	for ctx.Err() == nil {
		kv, err := DocumentBucket(ctx, js, names)
		if err == nil {
			err = watchDocuments(ctx, kv, f)
			var werr *writeError
			if errors.As(err, &werr) {
				return werr.err
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		log.Debug("document bucket unavailable; retrying", "bucket", names.DocumentBucket(), "err", err)
		backoff.Sleep(ctx, retryWait)
	}
	return nil
}

// writeError is a document the folder would not take.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

func watchDocuments(ctx context.Context, kv jetstream.KeyValue, f *Folder) error {
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("document watch ended")
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue // the end of the initial values; a deletion
			}
			if err := f.ReplaceDocument(e.Key(), e.Value()); err != nil {
				return &writeError{err: err}
			}
		}
	}
}
