package relay

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// noticeQueue is the bounded buffer between whoever produces notices and
// the one goroutine that delivers them: on the server between Notify and a
// connection's writer, in the client between its reader and the Notices
// channel. Producers never block, and memory stays bounded however slow
// the consumer is:
//
//   - a notice with a key replaces the queued notice with the same key
//     (only the latest route, run state or controller state matters);
//   - when the queue is full, a droppable notice (worker output) is dropped,
//     and a state notice evicts the oldest worker output, else the oldest
//     notice;
//   - every notice lost is counted in a marker at the point of the stream
//     where it went missing, which the consumer turns into one
//     NoticeDropped notice.
//
// Markers are never adjacent (they merge), so there are at most
// maxCount+1 of them.
type noticeQueue[T any] struct {
	mu        sync.Mutex
	items     list.List // of *queued[T]
	byKey     map[string]*list.Element
	count     int // queued notices, markers not included
	bytes     int
	maxCount  int
	maxBytes  int
	highWater int
	// dropped, if set, counts every notice this queue loses, for Stats.
	dropped *atomic.Uint64
	// ready has a token whenever something was queued since the consumer
	// last looked.
	ready chan struct{}
}

// queued is one entry: a notice, or (when lost > 0) a marker.
type queued[T any] struct {
	key       string
	droppable bool
	size      int
	val       T
	lost      int
}

func newNoticeQueue[T any](maxCount, maxBytes int, dropped *atomic.Uint64) *noticeQueue[T] {
	return &noticeQueue[T]{
		byKey:    make(map[string]*list.Element),
		maxCount: maxCount,
		maxBytes: maxBytes,
		dropped:  dropped,
		ready:    make(chan struct{}, 1),
	}
}

// push queues v, of the given size in bytes, under the rules above.
func (q *noticeQueue[T]) push(key string, droppable bool, size int, v T) {
	q.mu.Lock()
	if el, ok := q.byKey[key]; ok && key != "" {
		q.unlink(el)
	}
	switch {
	case size > q.maxBytes, droppable && q.full(size):
		// Worker output yields to what is queued; a notice larger than
		// the whole queue could never be delivered.
		q.markLost(1)
	case q.makeRoom(size):
		el := q.items.PushBack(&queued[T]{key: key, droppable: droppable, size: size, val: v})
		if key != "" {
			q.byKey[key] = el
		}
		q.count++
		q.bytes += size
		q.highWater = max(q.highWater, q.count)
	default:
		q.markLost(1)
	}
	q.mu.Unlock()
	q.signal()
}

// pushLost records n notices lost upstream (a server's dropped notice, seen
// by the client), at the current end of the stream.
func (q *noticeQueue[T]) pushLost(n int) {
	if n <= 0 {
		return
	}
	q.mu.Lock()
	q.markLost(n)
	q.mu.Unlock()
	q.signal()
}

// pop takes the oldest entry: a notice, or the count of a marker. ok is
// false when the queue is empty.
func (q *noticeQueue[T]) pop() (v T, lost int, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	el := q.items.Front()
	if el == nil {
		return v, 0, false
	}
	e := el.Value.(*queued[T])
	q.unlink(el)
	return e.val, e.lost, true
}

// len returns the number of queued notices, markers not included.
func (q *noticeQueue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.count
}

// peak returns the most notices the queue ever held at once.
func (q *noticeQueue[T]) peak() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.highWater
}

func (q *noticeQueue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *noticeQueue[T]) full(size int) bool {
	return q.count+1 > q.maxCount || q.bytes+size > q.maxBytes
}

// makeRoom evicts until a notice of size fits, and reports whether it does.
func (q *noticeQueue[T]) makeRoom(size int) bool {
	for q.full(size) {
		victim := q.oldest(true)
		if victim == nil {
			victim = q.oldest(false)
		}
		if victim == nil {
			return false
		}
		q.evict(victim)
	}
	return true
}

// oldest returns the oldest notice (markers skipped), the oldest droppable
// one if onlyDroppable.
func (q *noticeQueue[T]) oldest(onlyDroppable bool) *list.Element {
	for el := q.items.Front(); el != nil; el = el.Next() {
		e := el.Value.(*queued[T])
		if e.lost == 0 && (e.droppable || !onlyDroppable) {
			return el
		}
	}
	return nil
}

// evict turns a queued notice into a marker where it stood, so the reader
// learns where the gap is.
func (q *noticeQueue[T]) evict(el *list.Element) {
	e := el.Value.(*queued[T])
	q.forget(el, e)
	*e = queued[T]{lost: 1}
	q.countLost(1)
	q.mergeAround(el)
}

// markLost adds n to the marker at the end of the queue, or appends one.
func (q *noticeQueue[T]) markLost(n int) {
	q.countLost(n)
	if back := q.items.Back(); back != nil {
		if e := back.Value.(*queued[T]); e.lost > 0 {
			e.lost += n
			return
		}
	}
	q.items.PushBack(&queued[T]{lost: n})
}

func (q *noticeQueue[T]) countLost(n int) {
	if q.dropped != nil {
		q.dropped.Add(uint64(n))
	}
}

// unlink removes an entry (notice or marker) and merges the markers that
// become neighbours.
func (q *noticeQueue[T]) unlink(el *list.Element) {
	e := el.Value.(*queued[T])
	q.forget(el, e)
	prev := el.Prev()
	q.items.Remove(el)
	if prev != nil {
		q.mergeAround(prev)
	}
}

// forget drops a notice's share of the counters and its key.
func (q *noticeQueue[T]) forget(el *list.Element, e *queued[T]) {
	if e.lost > 0 {
		return
	}
	q.count--
	q.bytes -= e.size
	if e.key != "" && q.byKey[e.key] == el {
		delete(q.byKey, e.key)
	}
}

// mergeAround folds the markers next to el into el, if el is a marker.
func (q *noticeQueue[T]) mergeAround(el *list.Element) {
	e := el.Value.(*queued[T])
	if e.lost == 0 {
		return
	}
	for _, nb := range []*list.Element{el.Prev(), el.Next()} {
		if nb == nil {
			continue
		}
		if n := nb.Value.(*queued[T]); n.lost > 0 {
			e.lost += n.lost
			q.items.Remove(nb)
		}
	}
}
