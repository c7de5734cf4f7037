package controller

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
)

// journalBatch caps how many waiting appends share one write and fsync.
const journalBatch = 512

// postLinger is how long posted events may wait for company: they are
// written with the next awaited append (sharing its write and fsync), or
// after this long, whichever comes first. A crash loses at most this
// much of them; they gate nothing.
const postLinger = 50 * time.Millisecond

// postBacklog is how many requests may wait for the journal's goroutine
// before the next one waits for room: posted events cost no fsync of
// their caller, but a run must not outpace the disk without bound.
const postBacklog = 1024

// journal appends events with group commit: appends that arrive while a
// write is in flight wait together and share the next write(2) and fsync.
// An acknowledgement then costs about one fsync however many runs are
// writing their own events at the same moment.
//
// Every event written is folded into the instruction index, in order,
// its fold queued on the indexer before its append returns, so that an
// acknowledgement is in the index for every look-up after it is durable;
// every checkpointEvery events the index is checkpointed (see
// instrIndex, indexer).
//
// A write that fails for lack of space is not lost: its events are held
// in order, with everything appended after them, and written again with
// capped exponential backoff until the disk has room; LEDGER_WRITES_HELD
// then records the stall. Meanwhile acknowledgements are refused at once
// (appendAck), so that nothing is acknowledged that is not durable.
//
// Events that only tell the story (a run's state changes, worker output,
// summaries) are posted instead (post): they join the same queue, in the
// same order, but their caller does not wait for the fsync. An append
// that returns therefore also proves every event posted before it
// durable, and the index folds the events in log order either way.
//
// Between the two, appendWritten returns once its events are in the
// file, before their fsync, which follows at once: a killed controller
// keeps them, and the one log's order makes whatever is recorded after
// them durable only with them.
//
// No lock is taken on the way: a request is handed over a channel and
// from then on belongs to the journal's goroutine, the only writer of
// events.jsonl, until it is answered. The goroutine must never wait for
// a caller, only callers for it, so the hand-over is where the
// backpressure is (postBacklog), and a closed journal refuses at the
// same place (see in).
type journal struct {
	store *ledger.Store
	// index is the instruction index's owner while the journal runs: the
	// journal starts it and stops it once the last checkpoint is written.
	index *indexer
	now   func() time.Time
	// onErr hears checkpoint failures (the events are safe: a later
	// checkpoint or the next start's replay makes up for it) and events
	// given up at close.
	onErr func(error)
	// onFull hears the disk becoming full (true) and having room again.
	onFull func(bool)
	full   atomic.Bool
	// in is where requests are handed to the journal. The intake
	// goroutine takes each and queues it on reqs, the journal
	// goroutine's queue of postBacklog; it alone closes reqs, when quit
	// is closed, so that no send can meet a closed reqs, and intakeDone
	// then refuses every later request (a late callback must not panic
	// the controller, nor wait forever). A request taken from in is
	// queued, and so written and answered, even when close came in
	// between.
	in         chan *appendReq
	reqs       chan *appendReq
	quit       chan struct{}
	intakeDone chan struct{}
	done       chan struct{}
	// cpReq asks the checkpoint goroutine for a checkpoint (see
	// checkpointDue); cpDone is closed once it wrote the last one.
	cpReq  chan struct{}
	cpDone chan struct{}
	// giveUpAt is when writes held for lack of space are given up (unix
	// nanoseconds; 0: never, they wait for room): set when the controller
	// stops (see stopHolding), so that a disk that stays full cannot keep
	// it from ending.
	giveUpAt atomic.Int64
	// bus hears every line once it is written (nil: nobody listens).
	bus *bus
	// own hears the ids of the events before they are written, for the
	// replay signal to tell them from another writer's (nil: nobody
	// asks).
	own *ownEvents
}

type appendReq struct {
	events []ledger.Event
	// err hears how the write went; nil for a posted request, whose
	// failure goes to the journal's onErr.
	err chan error
	// early marks a request of appendWritten: err hears once the events
	// are in the file, before their fsync.
	early bool
	// answered is set once err has heard; a later failure goes to onErr.
	// Only the journal's goroutine touches it.
	answered bool
	// refuseWhenFull marks an acknowledgement: while the disk is full it
	// is refused at once (the person is told why), never held.
	refuseWhenFull bool
	// lines are the events encoded for events.jsonl, nil until the
	// journal's goroutine encoded them (see encode).
	lines []byte
	// told is set once own heard the events' ids: a write held for lack
	// of space and tried again does not tell them twice. Only the
	// journal's goroutine touches it.
	told bool
}

// errDiskFull is returned for an acknowledgement while the ledger's disk
// is full: nothing was recorded, so nothing is acknowledged.
var errDiskFull = errors.New("the ledger's disk is full")

// errJournalClosed refuses a request sent after the journal closed.
var errJournalClosed = errors.New("the journal is closed")

// Retry bounds for writes that failed for lack of space: capped
// exponential backoff with jitter, reset after a success.
var diskFullBackoff = heal.RestartPolicy{BaseDelay: 50 * time.Millisecond, MaxDelay: 2 * time.Second}

// closeRetry is how long a closing journal keeps retrying held events
// before it gives up on them, and how long a stopping controller holds
// them (see stopHolding).
const closeRetry = 10 * time.Second

func newJournal(store *ledger.Store, index *instrIndex, now func() time.Time, onErr func(error), onFull func(bool)) *journal {
	j := &journal{store: store, now: now, onErr: onErr, onFull: onFull,
		in: make(chan *appendReq), reqs: make(chan *appendReq, postBacklog), quit: make(chan struct{}), intakeDone: make(chan struct{}),
		done: make(chan struct{}), cpReq: make(chan struct{}, 1), cpDone: make(chan struct{})}
	j.index = startIndexer(index, j.checkpointDue)
	go j.intake()
	go j.loop()
	go j.checkpoints()
	return j
}

// append makes events durable, in order, and returns once they are.
// Invalid events are refused on their own, without failing the others.
// While the disk is full the events are held, in order, and retried until
// they are written.
func (j *journal) append(events ...ledger.Event) error { return j.send(&appendReq{events: events}) }

// appendWritten is append that returns once the events are in the file,
// before their fsync: a killed process no longer loses them, a crash of
// the machine in the next fsync could. The fsync follows at once, and
// every later append waits for it. A write that fails is held and
// retried like append's; a failed fsync after the return goes to onErr.
func (j *journal) appendWritten(events ...ledger.Event) error {
	return j.send(&appendReq{events: events, early: true})
}

// appendAck is append for an acknowledgement: while the disk is full it
// fails at once with errDiskFull instead of waiting for space.
func (j *journal) appendAck(events ...ledger.Event) error {
	return j.send(&appendReq{events: events, refuseWhenFull: true})
}

// post queues events to be made durable, in order with every other
// request, and returns without waiting for the write: for events that
// inform but gate nothing. A write that fails goes to onErr; while the
// disk is full posted events are held and retried like appended ones,
// never refused. The error is for events refused at once (invalid, or
// the journal closed).
func (j *journal) post(events ...ledger.Event) error {
	return j.enqueue(&appendReq{events: events})
}

// send enqueues req and waits for its answer.
func (j *journal) send(req *appendReq) error {
	req.err = make(chan error, 1)
	if err := j.enqueue(req); err != nil {
		return err
	}
	return <-req.err
}

// enqueue validates req's events and hands req to the journal's
// goroutine.
func (j *journal) enqueue(req *appendReq) error {
	for i := range req.events {
		if err := req.events[i].Validate(); err != nil {
			return err
		}
	}
	select {
	case j.in <- req:
		return nil
	case <-j.intakeDone:
		return errJournalClosed
	}
}

// intake moves requests from in to the journal goroutine's queue until
// quit; then it closes the queue, which the journal goroutine drains
// and ends with.
func (j *journal) intake() {
	defer close(j.intakeDone)
	defer close(j.reqs)
	for {
		select {
		case req := <-j.in:
			j.reqs <- req // waits while postBacklog requests wait
		case <-j.quit:
			return
		}
	}
}

// isFull reports whether writes are failing for lack of space.
func (j *journal) isFull() bool { return j.full.Load() }

func (j *journal) loop() {
	defer close(j.done)
	var pending []*appendReq
	var stall stall // the current run of writes failing for lack of space
	open := true
	var closedAt time.Time
	for open || len(pending) > 0 {
		if len(pending) == 0 && stall.attempts > 0 {
			// Only acknowledgements were refused: nothing is held, yet
			// until a write succeeds every instruction is refused. The
			// stall's own record probes whether the disk has room again.
			if j.recovered(&stall) == nil {
				continue
			}
			stall.attempts++
			pending, open = j.wait(pending, open, heal.Backoff(diskFullBackoff, stall.attempts-1, nil))
			continue
		}
		if len(pending) == 0 {
			req, ok := <-j.reqs
			if !ok {
				break
			}
			pending = append(pending, req)
		}
		pending, open = j.drain(pending, open)
		if open && stall.attempts == 0 && !awaited(pending) {
			pending, open = j.linger(pending, open)
		}
		if !open && closedAt.IsZero() {
			closedAt = time.Now()
		}
		if pending = j.encode(pending); len(pending) == 0 {
			continue
		}
		err := j.write(pending)
		switch {
		case err == nil:
			j.reply(pending, nil)
			pending = nil
			if stall.attempts > 0 {
				if err := j.recovered(&stall); err != nil {
					// Tried again once nothing else waits (see above).
					j.onErr(fmt.Errorf("record the end of a full disk: %w", err))
				}
			}
			continue
		case !isNoSpace(err):
			j.reply(pending, err)
			pending = nil
			continue
		}
		if stall.attempts == 0 {
			stall.since = j.now()
			j.full.Store(true)
			j.onFull(true)
		}
		stall.attempts++
		pending = refuseAcks(pending)
		stall.held = max(stall.held, countEvents(pending))
		if j.givingUp(open, closedAt) {
			j.onErr(fmt.Errorf("gave up on %d held events at stop: %w", countEvents(pending), err))
			j.reply(pending, err)
			if !open {
				return
			}
			pending = nil
			continue
		}
		pending, open = j.wait(pending, open, heal.Backoff(diskFullBackoff, stall.attempts-1, nil))
	}
}

// stopHolding bounds, from now on, how long writes are held for lack of
// space: held ones and any that fail later are given up (their callers
// hear the error) once within has passed. The controller calls it when
// it stops: what it acknowledged is durable already, and a successor
// resumes from that; what is held only tells the story.
func (j *journal) stopHolding(within time.Duration) {
	j.giveUpAt.CompareAndSwap(0, time.Now().Add(within).UnixNano())
}

// givingUp reports whether held writes are to be given up: the journal
// closed closeRetry ago, or the stop's bound passed.
func (j *journal) givingUp(open bool, closedAt time.Time) bool {
	if !open && time.Since(closedAt) > closeRetry {
		return true
	}
	at := j.giveUpAt.Load()
	return at != 0 && time.Now().UnixNano() > at
}

// awaited reports whether a request in reqs waits for its write.
func awaited(reqs []*appendReq) bool {
	for _, r := range reqs {
		if r.err != nil {
			return true
		}
	}
	return false
}

// linger holds posted requests back until an awaited one arrives to share
// their write, the batch is full, the journal closes or postLinger
// passed: a run's state changes and output then cost no fsync of their
// own.
func (j *journal) linger(pending []*appendReq, open bool) ([]*appendReq, bool) {
	t := time.NewTimer(postLinger)
	defer t.Stop()
	for len(pending) < journalBatch {
		// Encoded while waiting, posted events cost the append that
		// writes them nothing but the write.
		pending = j.encode(pending)
		select {
		case <-t.C:
			return pending, open
		case req, ok := <-j.reqs:
			if !ok {
				return pending, false
			}
			pending = append(pending, req)
			if req.err != nil {
				// Whatever else waits already joins this write.
				return j.drain(pending, open)
			}
		}
	}
	return pending, open
}

// encode encodes the events of the requests in pending that are not
// encoded yet, and returns pending without those it refused: a request
// whose events cannot be written (a line over MaxLineBytes) is answered
// with the error on its own, and the others are written without it.
func (j *journal) encode(pending []*appendReq) []*appendReq {
	kept := pending[:0]
	for _, r := range pending {
		if r.lines == nil {
			lines, err := ledger.EncodeLines(r.events)
			if err != nil {
				r.answer(fmt.Errorf("append events: %w", err), j.onErr)
				continue
			}
			r.lines = lines
		}
		kept = append(kept, r)
	}
	clear(pending[len(kept):])
	return kept
}

// stall is a run of writes that failed for lack of space.
type stall struct {
	since    time.Time
	attempts int
	held     int // the most events held at once until the disk had room
}

// drain adds the requests already waiting to pending, up to journalBatch.
func (j *journal) drain(pending []*appendReq, open bool) ([]*appendReq, bool) {
	for open && len(pending) < journalBatch {
		select {
		case more, ok := <-j.reqs:
			if !ok {
				return pending, false
			}
			pending = append(pending, more)
		default:
			return pending, open
		}
	}
	return pending, open
}

// wait sleeps for the backoff while the disk is full; acknowledgements
// arriving meanwhile are refused at once, other appends join the queue.
func (j *journal) wait(pending []*appendReq, open bool, d time.Duration) ([]*appendReq, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return pending, open
		case req, ok := <-j.reqs:
			if !ok {
				return pending, false
			}
			if req.refuseWhenFull {
				req.answer(errDiskFull, j.onErr)
				continue
			}
			pending = append(pending, req)
		}
	}
}

// write appends the events of pending, encoded (see encode), with one
// write and one sync, and folds them into the index.
func (j *journal) write(pending []*appendReq) error {
	var all []ledger.Event
	var lines []byte
	for _, r := range pending {
		all = append(all, r.events...)
		lines = append(lines, r.lines...)
		if j.own != nil && !r.told {
			j.own.add(r.events)
			r.told = true
		}
	}
	written := func() {
		answered := false
		for _, r := range pending {
			if r.early {
				r.answer(nil, j.onErr)
				answered = true
			}
		}
		if answered {
			// The answer readied its waiter on this goroutine's P, where
			// the fdatasync that follows would hold it until the
			// scheduler takes the P back (a sysmon tick or more; about
			// 0.2 ms per step's end on disk here). Let it run first.
			runtime.Gosched()
		}
	}
	if err := j.store.AppendLinesWritten(lines, written); err != nil {
		return err
	}
	j.index.foldBatch(all, j.store.EventsSize())
	if j.bus != nil {
		j.bus.publish(lines)
	}
	return nil
}

// recovered records, once the disk has room again, how long writes were
// held and how often they were tried: the ledger says what happened. The
// stall ends once that record is written; a write that fails leaves it
// on, to be tried again.
func (j *journal) recovered(s *stall) error {
	e := ledger.NewEvent(j.now(), globalID, globalID, "", ledger.EventSystem, ledger.SeverityWarn, ledger.ObjectOf(
		"operation", opLedgerWritesHeld, "since", ledger.FormatTime(s.since), "attempts", s.attempts,
		"held_events", s.held))
	if err := j.write(j.encode([]*appendReq{{events: []ledger.Event{e}}})); err != nil {
		return err
	}
	*s = stall{}
	j.full.Store(false)
	j.onFull(false)
	return nil
}

func (j *journal) reply(reqs []*appendReq, err error) {
	for _, r := range reqs {
		r.answer(err, j.onErr)
	}
}

// answer tells the request's sender how its write went, once; a
// failure nobody waits for any more (a posted request's, or a written
// one's fsync) goes to onErr.
func (r *appendReq) answer(err error, onErr func(error)) {
	switch {
	case r.err != nil && !r.answered:
		r.answered = true
		r.err <- err
	case err != nil:
		onErr(fmt.Errorf("write %d events nobody waits for: %w", len(r.events), err))
	}
}

// refuseAcks answers the held acknowledgements with errDiskFull and
// returns the rest, in order.
func refuseAcks(reqs []*appendReq) []*appendReq {
	kept := reqs[:0]
	for _, r := range reqs {
		if r.refuseWhenFull {
			r.err <- errDiskFull // an acknowledgement is always awaited
			continue
		}
		kept = append(kept, r)
	}
	return kept
}

func countEvents(reqs []*appendReq) int {
	n := 0
	for _, r := range reqs {
		n += len(r.events)
	}
	return n
}

// isNoSpace reports a write that failed for lack of space (or quota).
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// checkpoints writes the index's checkpoints on a goroutine of its own:
// they sync up to a few hundred small files, which acknowledgements must
// not wait for. The last one, once the journal's goroutine ended, covers
// every event: its copy is queued on the indexer after every fold.
func (j *journal) checkpoints() {
	defer close(j.cpDone)
	for {
		select {
		case <-j.cpReq:
			j.checkpoint()
		case <-j.done:
			j.checkpoint()
			return
		}
	}
}

// checkpointDue asks the checkpoint goroutine for a checkpoint; the
// indexer calls it once a fold made one due.
func (j *journal) checkpointDue() {
	select {
	case j.cpReq <- struct{}{}:
	default: // one is asked for already; the next fold asks again
	}
}

func (j *journal) checkpoint() {
	if err := j.index.checkpoint(); err != nil {
		j.onErr(err)
	}
}

// close stops the journal once every request already sent is written
// (or, with the disk still full, after closeRetry), and checkpoints the
// index so that the next start replays nothing. Requests sent after it
// are refused with errJournalClosed.
func (j *journal) close() {
	close(j.quit)
	<-j.done
	<-j.cpDone
	j.index.stop()
}
