package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchLoop is the state owned by the watcher goroutine.
type watchLoop struct {
	stateDir string
	interval time.Duration
	fw       *fsnotify.Watcher // nil when polling only
	dir      watchedDir
	follower *Follower
	stats    [len(watchedFiles)]fileStat
	out      chan Change

	pending FileSet
	rescan  bool
	errs    []error
}

func newWatchLoop(root string, opts WatchOptions) (*watchLoop, error) {
	l := &watchLoop{
		stateDir: filepath.Join(root, StateDir),
		interval: opts.PollInterval,
		out:      make(chan Change),
		pending:  AllFiles,
		rescan:   true,
	}
	if l.interval == 0 {
		l.interval = defaultPollInterval
	}
	if opts.PollOnly && l.interval < 0 {
		return nil, errors.New("PollOnly with polling turned off watches nothing")
	}
	if !opts.PollOnly {
		fw, err := fsnotify.NewWatcher()
		switch {
		case err != nil && l.interval < 0:
			return nil, err
		case err != nil:
			l.errs = append(l.errs, fmt.Errorf("fsnotify unavailable, polling every %v: %w", l.interval, err))
		default:
			l.fw = fw
		}
	}
	if _, err := l.rewatch(); err != nil {
		l.errs = append(l.errs, err)
	}
	// Resolve FromEnd now, not in the goroutine: an append made right
	// after Watch returns must be delivered, not skipped as "old".
	events := filepath.Join(l.stateDir, EventsFile)
	offset := opts.EventsOffset
	if offset == FromEnd {
		offset = statFile(events).size
	}
	l.follower = NewFollower(events, offset)
	l.refreshStats(AllFiles)
	return l, nil
}

func (l *watchLoop) run(ctx context.Context) {
	defer close(l.out)
	defer l.shutdown()
	var tick <-chan time.Time
	if l.interval > 0 {
		t := time.NewTicker(l.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		if l.pending != 0 || l.rescan {
			if ch, ok := l.build(); ok && !l.send(ctx, ch, tick) {
				return
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-l.notifyEvents():
			if ok {
				l.onNotify(ev)
			}
		case err, ok := <-l.notifyErrors():
			if ok {
				l.onNotifyError(err)
			}
		case <-tick:
			l.poll()
		}
		l.drain()
	}
}

func (l *watchLoop) shutdown() {
	if l.fw != nil {
		_ = l.fw.Close()
	}
	_ = l.follower.Close()
}

func (l *watchLoop) notifyEvents() chan fsnotify.Event {
	if l.fw == nil {
		return nil
	}
	return l.fw.Events
}

func (l *watchLoop) notifyErrors() chan error {
	if l.fw == nil {
		return nil
	}
	return l.fw.Errors
}

// drain takes every notification already queued, so that a burst becomes
// one Change.
func (l *watchLoop) drain() {
	for {
		select {
		case ev, ok := <-l.notifyEvents():
			if !ok {
				return
			}
			l.onNotify(ev)
		case err, ok := <-l.notifyErrors():
			if !ok {
				return
			}
			l.onNotifyError(err)
		default:
			return
		}
	}
}

// send delivers ch, collecting further notifications while the consumer
// is busy. It returns false when ctx is done.
func (l *watchLoop) send(ctx context.Context, ch Change, tick <-chan time.Time) bool {
	for {
		select {
		case l.out <- ch:
			return true
		case <-ctx.Done():
			return false
		case ev, ok := <-l.notifyEvents():
			if ok {
				l.onNotify(ev)
			}
		case err, ok := <-l.notifyErrors():
			if ok {
				l.onNotifyError(err)
			}
		case <-tick:
			l.poll()
		}
	}
}

// onNotify records one fsnotify event.
func (l *watchLoop) onNotify(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	if ev.Name == l.dir.path {
		// The watched folder itself was removed or renamed; its watch
		// is gone. A folder recreated under the same name can reuse the
		// inode number, so the identity check alone would trust it.
		l.forgetDir()
		l.checkDir()
		return
	}
	if l.dir.path != l.stateDir {
		// Something changed in an ancestor: state/ may exist now.
		l.checkDir()
		return
	}
	if filepath.Dir(ev.Name) != l.stateDir {
		return
	}
	l.pending |= fileOf(filepath.Base(ev.Name))
}

// onNotifyError turns any fsnotify error (overflow included) into a
// rescan: some changes may have been lost.
func (l *watchLoop) onNotifyError(err error) {
	l.pending, l.rescan = AllFiles, true
	l.noteErr(fmt.Errorf("watch: %w", err))
	l.checkDir()
}

// maxChangeErrs bounds the errors one Change carries, so that a stream of
// failures while the consumer is busy does not grow without limit.
const maxChangeErrs = 8

func (l *watchLoop) noteErr(err error) {
	if len(l.errs) < maxChangeErrs {
		l.errs = append(l.errs, err)
	}
}

// poll compares each file's stat with the last one seen.
func (l *watchLoop) poll() {
	l.checkDir()
	for i, w := range watchedFiles {
		st := statFile(filepath.Join(l.stateDir, w.name))
		if st != l.stats[i] {
			l.stats[i] = st
			l.pending |= w.bit
		}
	}
}

// checkDir re-establishes the folder watch; any move is a rescan.
func (l *watchLoop) checkDir() {
	moved, err := l.rewatch()
	if moved || err != nil {
		l.pending, l.rescan = AllFiles, true
	}
	if err != nil {
		l.noteErr(err)
	}
}

// build assembles the Change for the pending files. ok is false when
// there is nothing worth waking the consumer for (a partial line).
func (l *watchLoop) build() (Change, bool) {
	ch := Change{Files: l.pending, Rescan: l.rescan, Err: errors.Join(l.errs...)}
	if ch.Rescan {
		ch.Files = AllFiles
	}
	l.pending, l.rescan, l.errs = 0, false, nil
	// Stat before reading, so that a write after the read shows as a
	// difference to the next poll instead of being absorbed.
	l.refreshStats(ch.Files)
	if ch.Files&FileEvents != 0 {
		b, err := l.follower.Next()
		ch.Events, ch.Skipped, ch.EventsReset = b.Events, b.Skipped, b.Reset
		if err != nil {
			ch.Err = errors.Join(ch.Err, err)
		}
		if b.More {
			l.pending |= FileEvents
		}
		if !ch.Rescan && len(b.Events) == 0 && b.Skipped == 0 && !b.Reset {
			ch.Files &^= FileEvents
		}
	}
	ch.Offset = l.follower.Offset()
	return ch, ch.Files != 0 || ch.Err != nil
}

func (l *watchLoop) refreshStats(files FileSet) {
	for i, w := range watchedFiles {
		if files&w.bit != 0 {
			l.stats[i] = statFile(filepath.Join(l.stateDir, w.name))
		}
	}
}

// fileStat is what the poll compares. The zero value means "missing".
type fileStat struct {
	exists   bool
	size     int64
	mtime    int64
	ino, dev uint64
}

func statFile(path string) fileStat {
	st, err := os.Stat(path)
	if err != nil {
		return fileStat{}
	}
	ino, dev := fileID(st)
	return fileStat{exists: true, size: st.Size(), mtime: st.ModTime().UnixNano(), ino: ino, dev: dev}
}
