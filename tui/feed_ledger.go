package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/liveness"
	"github.com/daokit/daokit/tui/live"
)

// LedgerSource is the window's feed of a ledger root: at first the three
// documents and the newest events (read from the end of events.jsonl,
// whatever its size), then what ledger.Watch reports, coalesced: every
// change already waiting joins the update, and updates are at least
// DefaultFrameGap apart, so however fast the controller appends the
// window handles a bounded number of messages a second.
type LedgerSource struct {
	root string
	tail int
	poll time.Duration
	gap  time.Duration

	mu     sync.Mutex
	w      *ledger.Watcher
	closed bool

	prev   ledger.Snapshot
	loaded bool      // prev holds a load (the zero Snapshot reads as good)
	last   time.Time // when the previous update was handed out
}

var _ live.LedgerFeed = (*LedgerSource)(nil)

// NewLedgerSource returns a feed of root that keeps at most tail events
// per update (the event pane's capacity). It reads nothing until the
// first Next.
func NewLedgerSource(root string, tail int) *LedgerSource {
	return &LedgerSource{root: root, tail: max(tail, 1), poll: time.Second, gap: DefaultFrameGap}
}

// SetPollInterval sets the period of the stat poll that covers
// filesystems where fsnotify is silent (default one second).
func (s *LedgerSource) SetPollInterval(d time.Duration) { s.poll = d }

// DefaultFrameGap is the shortest time between two updates: changes that
// arrive closer together join one update, so the window handles (and
// paints, see PaintGap) at most one per gap whatever the append rate.
const DefaultFrameGap = 4 * time.Millisecond

// SetFrameGap sets the shortest time between two updates; changes that
// arrive meanwhile join the next update.
func (s *LedgerSource) SetFrameGap(d time.Duration) { s.gap = d }

// Close stops the watcher; a Next in progress returns live.ErrClosed.
func (s *LedgerSource) Close() error {
	s.mu.Lock()
	w := s.w
	s.closed = true
	s.mu.Unlock()
	if w != nil {
		return w.Close()
	}
	return nil
}

// Next implements live.LedgerFeed.
func (s *LedgerSource) Next(ctx context.Context) (live.LedgerUpdate, error) {
	s.mu.Lock()
	w, closed := s.w, s.closed
	s.mu.Unlock()
	switch {
	case closed:
		return live.LedgerUpdate{}, live.ErrClosed
	case w == nil:
		return s.start(ctx)
	}
	var u live.LedgerUpdate
	select {
	case ch, ok := <-w.Changes():
		if !ok {
			return u, live.ErrClosed
		}
		u.ReadAt = time.Now()
		s.add(&u, ch)
	case <-ctx.Done():
		return u, ctx.Err()
	}
	if err := s.coalesce(ctx, w, &u); err != nil {
		return u, err
	}
	s.last = time.Now()
	return u, nil
}

// start reads the ledger as it is and starts the watcher after the
// events it read, so that none is missed or shown twice.
func (s *LedgerSource) start(ctx context.Context) (live.LedgerUpdate, error) {
	u := live.LedgerUpdate{Initial: true, ReadAt: time.Now()}
	l := ledger.Layout{Root: s.root}
	offset := int64(0)
	res, err := ledger.TailEvents(l.Events(), s.tail)
	if err == nil {
		u.Events, u.Skipped, offset = res.Events, res.Skipped, res.Offset
	} else if !errors.Is(err, ledger.ErrMissing) {
		u.EventsErr = err
	}
	w, err := ledger.Watch(context.Background(), s.root, ledger.WatchOptions{EventsOffset: offset, PollInterval: s.poll})
	if err != nil {
		return u, fmt.Errorf("feed %s: %w", s.root, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = w.Close()
		return u, live.ErrClosed
	}
	s.w = w
	s.mu.Unlock()
	s.reload(&u)
	s.last = time.Now()
	return u, ctx.Err()
}

// coalesce adds every change already waiting, and, when the previous
// update went out less than a frame ago, the ones that come before the
// frame is due.
func (s *LedgerSource) coalesce(ctx context.Context, w *ledger.Watcher, u *live.LedgerUpdate) error {
	var due <-chan time.Time
	if wait := s.gap - time.Since(s.last); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		due = t.C
	}
	for {
		select {
		case ch, ok := <-w.Changes():
			if !ok {
				return live.ErrClosed
			}
			s.add(u, ch)
			continue
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if due == nil {
			return nil
		}
		select {
		case ch, ok := <-w.Changes():
			if !ok {
				return live.ErrClosed
			}
			s.add(u, ch)
		case <-due:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// add folds one watcher change into u.
func (s *LedgerSource) add(u *live.LedgerUpdate, ch ledger.Change) {
	if ch.EventsReset {
		u.Events, u.Elided, u.Reset = nil, 0, true
	}
	u.Events = append(u.Events, ch.Events...)
	if n := len(u.Events) - s.tail; n > 0 {
		// Only the newest tail events can be shown; the rest would be
		// pushed out of the pane at once.
		u.Events = append(u.Events[:0:0], u.Events[n:]...)
		u.Elided += n
	}
	u.Skipped += ch.Skipped
	if ch.Err != nil {
		u.WatchErr = errors.Join(u.WatchErr, ch.Err)
	}
	if ch.Files&(ledger.FilePipeline|ledger.FileHeartbeat|ledger.FileLeases|ledger.FileHandoff) != 0 || ch.Rescan {
		s.reload(u)
	}
}

// reload reads the documents again, keeping the last good value of any
// that fails, and checks that events.jsonl is there.
func (s *LedgerSource) reload(u *live.LedgerUpdate) {
	snap := ledger.LoadSnapshot(s.root)
	if s.loaded {
		snap = snap.KeepGood(s.prev)
	}
	s.prev, s.loaded = snap, true
	u.Snapshot = &snap
	u.Output = liveness.NewestOutput(ledger.Layout{Root: s.root}.Artifacts(), snap.Pipeline.Value.TaskID, snap.Pipeline.Value.RunID)
	if u.EventsErr == nil {
		u.EventsErr = eventsProblem(ledger.Layout{Root: s.root}.Events())
	}
}

// eventsProblem says why events.jsonl cannot be followed, or nil.
func eventsProblem(path string) error {
	st, err := os.Lstat(path) // a link is refused by the reader, so say so
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &ledger.FileError{File: ledger.EventsFile, Path: path, Err: ledger.ErrMissing}
	case err != nil:
		return &ledger.FileError{File: ledger.EventsFile, Path: path, Err: err}
	case !st.Mode().IsRegular():
		return &ledger.FileError{File: ledger.EventsFile, Path: path, Err: ledger.ErrNotRegular}
	}
	return nil
}
