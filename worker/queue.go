package worker

import (
	"sync"

	"github.com/daokit/daokit/worker/transcript"
)

// recordQueue holds records between the goroutines that follow a worker's
// logs and the one that hands records to the consumer. It is bounded in
// lines and bytes. When it is full the oldest ordinary record is dropped
// (the freshest output is what a person watching wants) and the drop is
// counted on the record that follows it. Records carrying session, result
// or error events are never dropped while the worker runs: a push of one
// into a queue full of such records waits for room, which slows the
// reading of the worker's log rather than losing its resume handle or its result. Once
// the worker is being stopped (relax) or the consumer has gone (discard),
// nothing waits any more.
type recordQueue struct {
	mu sync.Mutex
	// ring grows with the backlog, up to maxLines entries: a worker whose
	// consumer keeps up costs a few entries, not the bound.
	ring     []queueEntry
	maxLines int
	head, n  int
	bytes    int
	maxBytes int
	pending  int   // drops to add to the next record pushed
	dropped  int64 // every record not delivered
	closed   bool
	relaxed  bool
	gone     bool

	avail   chan struct{} // a record or the close is ready to pop
	space   chan struct{} // a pop made room
	relaxCh chan struct{}
	goneCh  chan struct{}
	relaxer sync.Once
	goner   sync.Once
}

type queueEntry struct {
	rec      transcript.Record
	size     int
	critical bool
}

// entryOverhead approximates a record's memory beyond its texts.
const entryOverhead = 128

// memSize approximates the memory a queued record holds: an agent's
// message event can carry far more text than the record's cut line.
func memSize(r *transcript.Record) int {
	n := len(r.Text) + entryOverhead
	for _, e := range r.Events {
		n += len(e.Text) + len(e.Tool) + len(e.ID) + len(e.Code)
	}
	return n
}

func newRecordQueue(maxLines, maxBytes int) *recordQueue {
	return &recordQueue{
		ring:     make([]queueEntry, min(maxLines, initialRing)),
		maxLines: maxLines,
		maxBytes: maxBytes,
		avail:    make(chan struct{}, 1),
		space:    make(chan struct{}, 1),
		relaxCh:  make(chan struct{}),
		goneCh:   make(chan struct{}),
	}
}

// initialRing is how many entries a queue starts with.
const initialRing = 16

// grow makes room for one more entry, doubling the ring up to maxLines
// (or one past it, for close's gap marker). Called with q.mu held.
func (q *recordQueue) grow() {
	if q.n < len(q.ring) {
		return
	}
	ring := make([]queueEntry, max(min(2*len(q.ring), q.maxLines), q.n+1))
	for i := range q.n {
		ring[i] = *q.at(i)
	}
	q.ring, q.head = ring, 0
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (q *recordQueue) at(i int) *queueEntry { return &q.ring[(q.head+i)%len(q.ring)] }

func (q *recordQueue) fits(size int) bool {
	return q.n < q.maxLines && (q.n == 0 || q.bytes+size <= q.maxBytes)
}

// push adds rec, dropping or waiting as described on recordQueue.
func (q *recordQueue) push(rec transcript.Record) {
	e := queueEntry{rec: rec, size: memSize(&rec), critical: rec.Critical()}
	for {
		q.mu.Lock()
		if q.gone {
			q.dropped++
			q.mu.Unlock()
			return
		}
		for !q.fits(e.size) && q.evictOldestOrdinary() {
		}
		if q.fits(e.size) {
			e.rec.Dropped += q.pending
			q.pending = 0
			q.grow()
			*q.at(q.n) = e
			q.n++
			q.bytes += e.size
			q.mu.Unlock()
			notify(q.avail)
			return
		}
		if !e.critical || q.relaxed {
			q.pending++
			q.dropped++
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-q.relaxCh:
		case <-q.goneCh:
		}
	}
}

// evictOldestOrdinary drops the oldest non-critical entry and counts it on
// the entry after it (or on the next push). It reports false when every
// entry is critical.
func (q *recordQueue) evictOldestOrdinary() bool {
	for i := 0; i < q.n; i++ {
		if q.at(i).critical {
			continue
		}
		victim := *q.at(i)
		// Close the gap: entries before the victim move one place on.
		for j := i; j > 0; j-- {
			*q.at(j) = *q.at(j - 1)
		}
		*q.at(0) = queueEntry{}
		q.head = (q.head + 1) % len(q.ring)
		q.n--
		q.bytes -= victim.size
		q.dropped++
		drops := 1 + victim.rec.Dropped
		if i < q.n {
			q.at(i).rec.Dropped += drops
		} else {
			q.pending += drops
		}
		return true
	}
	return false
}

// pop waits for the next record. It reports false once the queue is
// closed and empty, or discarded.
func (q *recordQueue) pop() (transcript.Record, bool) {
	for {
		q.mu.Lock()
		if q.gone {
			q.mu.Unlock()
			return transcript.Record{}, false
		}
		if q.n > 0 {
			e := *q.at(0)
			*q.at(0) = queueEntry{}
			q.head = (q.head + 1) % len(q.ring)
			q.n--
			q.bytes -= e.size
			q.mu.Unlock()
			notify(q.space)
			return e.rec, true
		}
		if q.closed {
			q.mu.Unlock()
			return transcript.Record{}, false
		}
		q.mu.Unlock()
		select {
		case <-q.avail:
		case <-q.goneCh:
		}
	}
}

// close marks the end of output. Drops not yet counted on any record
// become one gap record, so that the consumer learns of them.
func (q *recordQueue) close(gap transcript.Record) {
	q.mu.Lock()
	if q.pending > 0 && !q.gone {
		gap.Dropped, q.pending = q.pending, 0
		// At the bound: one slot more, once, for the gap marker.
		q.grow()
		*q.at(q.n) = queueEntry{rec: gap, size: entryOverhead, critical: true}
		q.n++
	}
	q.closed = true
	q.mu.Unlock()
	notify(q.avail)
}

// relax stops pushes from waiting: the worker is being stopped, and its
// remaining output must drain so that it can be reaped.
func (q *recordQueue) relax() {
	q.relaxer.Do(func() {
		q.mu.Lock()
		q.relaxed = true
		q.mu.Unlock()
		close(q.relaxCh)
	})
}

// discard drops everything, now and later: the consumer has gone.
func (q *recordQueue) discard() {
	q.goner.Do(func() {
		q.mu.Lock()
		q.gone = true
		q.dropped += int64(q.n)
		for i := 0; i < q.n; i++ {
			*q.at(i) = queueEntry{}
		}
		q.n, q.bytes = 0, 0
		q.mu.Unlock()
		close(q.goneCh)
	})
}

func (q *recordQueue) droppedCount() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}
