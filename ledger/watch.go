package ledger

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// FileSet is a set of ledger files, as reported by a Change.
type FileSet uint8

// The files a Watcher reports.
const (
	FilePipeline FileSet = 1 << iota
	FileHeartbeat
	FileLeases
	FileEvents
	FileHandoff
	// AllFiles is every file: a rescan.
	AllFiles = FilePipeline | FileHeartbeat | FileLeases | FileEvents | FileHandoff
)

// watchedFiles maps each FileSet bit to its name in state/, in bit order.
var watchedFiles = [...]struct {
	bit  FileSet
	name string
}{
	{FilePipeline, PipelineFile},
	{FileHeartbeat, HeartbeatFile},
	{FileLeases, LeasesFile},
	{FileEvents, EventsFile},
	{FileHandoff, HandoffFile},
}

// Has reports whether s contains every file of f.
func (s FileSet) Has(f FileSet) bool { return s&f == f && f != 0 }

// String lists the file names, "|"-separated.
func (s FileSet) String() string {
	var names []string
	for _, w := range watchedFiles {
		if s&w.bit != 0 {
			names = append(names, w.name)
		}
	}
	return strings.Join(names, "|")
}

// fileOf returns the bit of a state/ file name, 0 for any other name
// (temp files, the lock, snapshots.jsonl, …).
func fileOf(name string) FileSet {
	for _, w := range watchedFiles {
		if w.name == name {
			return w.bit
		}
	}
	return 0
}

// WatchOptions configure Watch.
type WatchOptions struct {
	// EventsOffset is the byte offset of events.jsonl from which new
	// events are delivered: normally TailResult.Offset of the tail the
	// caller just showed. FromEnd starts at the end of the file as it is
	// when Watch is called; 0 delivers the whole log (in bounded batches).
	EventsOffset int64
	// PollInterval is the period of the stat poll (size, mtime, inode of
	// each file) that catches changes fsnotify misses, e.g. on NFS, 9p or
	// WSL's /mnt. 0 means one second; a negative value turns polling off.
	PollInterval time.Duration
	// PollOnly skips fsnotify and relies on the poll alone.
	PollOnly bool
}

// defaultPollInterval is the safety-net poll period.
const defaultPollInterval = time.Second

// Change is one wake-up of a Watcher: everything that changed since the
// previous Change, coalesced.
type Change struct {
	// Files are the files that changed. Reload the documents among them;
	// for FileEvents, the new records are in Events.
	Files FileSet
	// Events are the events appended since the previous Change, in order.
	Events []Event
	// Skipped counts new lines of events.jsonl that were not events.
	Skipped int
	// Offset is the events.jsonl offset after Events.
	Offset int64
	// EventsReset reports that events.jsonl was truncated, replaced or
	// deleted: Events start over from its beginning.
	EventsReset bool
	// Rescan reports that the watcher may have missed changes (the first
	// Change, an fsnotify overflow or error, the state folder appearing,
	// vanishing or being replaced). Files is then AllFiles.
	Rescan bool
	// Err is a problem that did not stop the watcher: the reason for a
	// rescan, a read error of events.jsonl, fsnotify being unavailable.
	Err error
}

// Watcher delivers Changes of one ledger root. The first Change reports
// every file (Rescan), so that a consumer that loads the documents when it
// receives it misses nothing that happened before Watch returned.
type Watcher struct {
	changes chan Change
	cancel  context.CancelFunc
	done    chan struct{}
}

// Watch starts watching root/state. The folder need not exist: until it
// does, the nearest existing ancestor is watched. fsnotify watches the
// folder, not the files, because the files are replaced by rename; a slow
// stat poll backs it up. Bursts are coalesced: all pending notifications
// are drained, then one Change is delivered at once, without a debounce
// timer. While the consumer is busy, changes accumulate into the next
// Change. The watcher stops when ctx is done or Close is called, and then
// closes the Changes channel.
func Watch(ctx context.Context, root string, opts WatchOptions) (*Watcher, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("watch ledger: %w", err)
	}
	l, err := newWatchLoop(abs, opts)
	if err != nil {
		return nil, fmt.Errorf("watch ledger: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{changes: l.out, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		l.run(ctx)
	}()
	return w, nil
}

// Changes returns the channel of Changes. It is closed when the watcher
// stops.
func (w *Watcher) Changes() <-chan Change { return w.changes }

// Close stops the watcher and waits until its goroutine (and fsnotify's)
// has ended. It is safe to call more than once.
func (w *Watcher) Close() error {
	w.cancel()
	<-w.done
	return nil
}
