package live

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/ledger"
)

// ErrClosed is returned by a feed or relay used after it was closed.
var ErrClosed = errors.New("live: closed")

// LedgerFeed delivers a ledger root as it changes.
type LedgerFeed interface {
	// Next blocks until the ledger changed since the previous call and
	// returns everything that changed, coalesced into one update; the
	// first call returns the ledger as it is (Initial). It returns the
	// context's error when ctx ends and ErrClosed after the feed is
	// closed. Problems with single files are not errors: they are in
	// the update.
	Next(ctx context.Context) (LedgerUpdate, error)
}

// LedgerUpdate is one coalesced change of the ledger.
type LedgerUpdate struct {
	// Initial marks the first update: the current state and the newest
	// events, not a change.
	Initial bool
	// Snapshot is set when one of the documents changed (and on the
	// first update). A document that failed to load keeps its last good
	// value, marked Stale, together with the error.
	Snapshot *ledger.Snapshot
	// Events are the events appended since the previous update, oldest
	// first. A burst larger than the window keeps is cut to its newest
	// events; Elided counts the ones left out.
	Events []ledger.Event
	Elided int
	// Skipped counts new lines of events.jsonl that were not events.
	Skipped int
	// Reset says events.jsonl was truncated or replaced: the events shown
	// so far belong to a file that is gone.
	Reset bool
	// EventsErr is a problem reading events.jsonl (missing, unreadable),
	// nil when it was read fine.
	EventsErr error
	// WatchErr is a problem of the watcher itself (no fsnotify, a rescan
	// after an overflow); the feed keeps going.
	WatchErr error
	// ReadAt is when the feed read the update, for latency figures.
	ReadAt time.Time
	// Output is the newest output under the root's artifacts folder when
	// Snapshot was read (zero if none): the implicit heartbeat that
	// `daokit check` also weighs, so that the window judges liveness by
	// the same evidence (liveness.LedgerSignals).
	Output time.Time
}

// Controllers finds and starts the controller of the window's root.
type Controllers interface {
	// Probe reports whether a live controller owns the root: the pid
	// its lock file names is alive, and what its lease and socket say.
	// An error means the probe itself failed (the root is unreadable).
	Probe(ctx context.Context) (Probe, error)
	// Start starts a controller for the root as a child in a session of
	// its own, so that closing the window does not stop it.
	Start(ctx context.Context) (Process, error)
}

// Probe is what a look at the root says about its controller.
type Probe struct {
	// Live reports a controller process that holds the root.
	Live bool
	// PID is the process named by the lock file (0 if none).
	PID int
	// LeasePID is the holder of the newest unexpired ACTIVE standing
	// lease of a controller (liveness.Controller.LeasePID), 0 if none.
	LeasePID int
	// Socket reports that the controller's socket file exists.
	Socket bool
}

// Process is a controller the window started.
type Process interface {
	// PID returns the child's process id.
	PID() int
	// Wait blocks until the child exits, and describes how; it returns
	// the context's error when ctx ends first (the child runs on).
	Wait(ctx context.Context) (Exit, error)
}

// Exit is how a child controller ended.
type Exit struct {
	Code   int    // exit status, -1 when killed by a signal
	Signal string // the signal's name, if any
	// Output is the last line the child printed, to say why.
	Output string
	// Config lists every problem of daokit.toml when the controller
	// refused to start for them: no restart helps until the person
	// fixes the file, so none is made by itself. Each problem is worded
	// in the window's language when shown (a language switch rewords
	// it).
	Config []Problem
}

// Problem is one thing wrong, worded in the language asked for.
type Problem interface {
	Localize(loc *i18n.Localizer) string
}

// Same reports whether e and o describe the same exit (Exit holds a
// list, so == cannot tell).
func (e Exit) Same(o Exit) bool {
	return e.Code == o.Code && e.Signal == o.Signal && e.Output == o.Output && slices.Equal(e.Config, o.Config)
}
