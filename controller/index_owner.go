package controller

import (
	"errors"

	"github.com/daokit/daokit/ledger"
)

// indexer is the goroutine that owns the instruction index while the
// journal runs. The journal folds every batch it wrote into the index,
// a relay handler looks up each message id it is sent, and the
// checkpoint goroutine copies the index to write it: three goroutines
// at their own pace. Rather than share the index under a lock, each
// hands the indexer a request on one queue. The requests are short (no
// file is written or synced on this goroutine), so a look-up never waits
// for the journal's fsync or a checkpoint's; and the journal need not
// wait for its fold: it queues it before it answers the batch's
// appenders, and the queue keeps its order, so a look-up made after an
// append returned runs after that append's fold and finds it.
//
// Requests are closures over the index, as the state loop's are (see
// stateLoop): what a caller needs to do with the answer outside (a
// bucket read, a checkpoint's writes) it does after do returns.
type indexer struct {
	// x is the index: its goroutine's until stop returned, then again
	// whoever stopped it.
	x    *instrIndex
	dir  string
	reqs chan func(*instrIndex)
	quit chan struct{}
	done chan struct{}
	// due hears that enough was folded for a checkpoint. It runs on the
	// indexer: it must not wait.
	due func()
}

// indexQueue is how many requests may wait for the indexer (the
// journal's folds, mostly) before the next one waits for room.
const indexQueue = 64

// errIndexClosed answers a request made after the indexer stopped.
var errIndexClosed = errors.New("the instruction index is closed")

// startIndexer hands x to a new indexer: x is its goroutine's alone
// until stop returns.
func startIndexer(x *instrIndex, due func()) *indexer {
	ix := &indexer{x: x, dir: x.dir, reqs: make(chan func(*instrIndex), indexQueue), quit: make(chan struct{}),
		done: make(chan struct{}), due: due}
	go func() {
		defer close(ix.done)
		for {
			select {
			case f := <-ix.reqs:
				f(ix.x)
			case <-ix.quit:
				return
			}
		}
	}()
	return ix
}

// stop ends the indexer and waits for it. Requests after stop, or
// queued and not yet run by then, are not run: whoever stops it makes
// sure nothing it needs is still queued (the journal stops it after the
// last checkpoint, whose copy was queued after every fold).
func (ix *indexer) stop() {
	close(ix.quit)
	<-ix.done
}

// do runs f on the indexer and returns once it ran, or false without
// running it when the indexer has stopped. A request queued as it
// stopped may never run: once the indexer is done, whatever ran has run.
func (ix *indexer) do(f func(*instrIndex)) bool {
	ran := make(chan struct{})
	select {
	case ix.reqs <- func(x *instrIndex) { f(x); close(ran) }:
	case <-ix.done:
		return false
	}
	select {
	case <-ran:
		return true
	case <-ix.done:
		select {
		case <-ran:
			return true
		default:
			return false
		}
	}
}

// foldBatch queues the fold of a batch the journal wrote (see
// instrIndex.foldBatch) and returns without waiting for it; once it ran,
// due hears whether a checkpoint is due. events must not change after.
func (ix *indexer) foldBatch(events []ledger.Event, offset int64) {
	select {
	case ix.reqs <- func(x *instrIndex) {
		x.foldBatch(events, offset)
		if x.due() {
			ix.due()
		}
	}:
	case <-ix.done:
	}
}

// lookup returns the entry of a message id, if it was ever acknowledged:
// from memory on the indexer, else from its bucket on the caller's
// goroutine.
func (ix *indexer) lookup(id string) (indexEntry, bool, error) {
	var en indexEntry
	var ok bool
	if !ix.do(func(x *instrIndex) { en, ok = x.remembered(id) }) {
		return indexEntry{}, false, errIndexClosed
	}
	if ok {
		return en, true, nil
	}
	return readBucket(ix.dir, id)
}

// openEntries returns the open instructions in the order they were
// acknowledged.
func (ix *indexer) openEntries() (out []indexEntry) {
	ix.do(func(x *instrIndex) { out = x.openEntries() })
	return out
}

// endedEntries returns the runs waiting for a retry, oldest first.
func (ix *indexer) endedEntries() (out []indexEntry) {
	ix.do(func(x *instrIndex) { out = x.endedEntries() })
	return out
}

// checkpoint writes a checkpoint (see instrIndex.checkpoint): the copy
// is taken on the indexer, the files are written on the caller's
// goroutine, and the indexer then forgets what moved into buckets.
func (ix *indexer) checkpoint() error {
	var cp indexSnapshot
	if !ix.do(func(x *instrIndex) { cp = x.snapshot() }) {
		return errIndexClosed
	}
	if err := cp.write(ix.dir); err != nil {
		return err
	}
	ix.do(func(x *instrIndex) { x.checkpointed(cp) })
	return nil
}
