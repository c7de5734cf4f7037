package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// laneScheduler hands out the slots of each lane: at most the lane's
// concurrency limit of runs hold a slot at once, and the others wait in
// first-come, first-served order. Waiting is explicit: a Ticket knows its
// place in the queue and is told when it moves. A lane without a
// configured limit has one slot. A laneScheduler is safe for concurrent
// use.
type laneScheduler struct {
	mu     sync.Mutex
	limits map[string]int
	lanes  map[string]*laneQueue
}

type laneQueue struct {
	holding []*ticket
	waiting []*ticket
}

// errAlreadyQueued is returned for a second ticket of the same owner in a
// lane: a run has exactly one owner, and an owner one place in a lane.
var errAlreadyQueued = errors.New("owner already holds or waits for a slot of this lane")

// newLaneScheduler returns a scheduler with the given slots per lane
// (config.Config.ConcurrencyLimits). Limits below 1 count as 1.
func newLaneScheduler(limits map[string]int) *laneScheduler {
	s := &laneScheduler{limits: map[string]int{}, lanes: map[string]*laneQueue{}}
	for lane, n := range limits {
		s.limits[lane] = max(n, 1)
	}
	return s
}

// ticket is one run's place in a lane: waiting for a slot, then holding
// it, until Release.
type ticket struct {
	s     *laneScheduler
	lane  string
	owner Owner
	ready chan struct{} // closed when the slot is granted
	moved chan struct{} // signalled when the place in the queue changes
	done  bool          // released; guarded by s.mu
}

func (s *laneScheduler) limit(lane string) int {
	if n, ok := s.limits[lane]; ok {
		return n
	}
	return 1
}

func (s *laneScheduler) queue(lane string) *laneQueue {
	q := s.lanes[lane]
	if q == nil {
		q = &laneQueue{}
		s.lanes[lane] = q
	}
	return q
}

// Enqueue takes a place in lane for owner: the slot at once when one is
// free and nobody waits, else the end of the queue. An owner with a
// complete id may hold only one place per lane (errAlreadyQueued).
func (s *laneScheduler) Enqueue(lane string, owner Owner) (*ticket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue(lane)
	if owner.Valid() {
		for _, t := range slices.Concat(q.holding, q.waiting) {
			if t.owner == owner {
				return nil, fmt.Errorf("enqueue %s on lane %s: %w", owner, lane, errAlreadyQueued)
			}
		}
	}
	t := &ticket{s: s, lane: lane, owner: owner, ready: make(chan struct{}), moved: make(chan struct{}, 1)}
	q.waiting = append(q.waiting, t)
	s.grant(lane, q)
	return t, nil
}

// grant gives free slots to the front of the queue and tells the rest
// they moved. Called with s.mu held.
func (s *laneScheduler) grant(lane string, q *laneQueue) {
	moved := false
	for len(q.holding) < s.limit(lane) && len(q.waiting) > 0 {
		t := q.waiting[0]
		q.waiting = q.waiting[1:]
		q.holding = append(q.holding, t)
		close(t.ready)
		moved = true
	}
	if moved {
		for _, t := range q.waiting {
			notify(t.moved)
		}
	}
}

// Acquire waits for a slot of lane. onPosition, if set, is called from
// the calling goroutine with the 1-based place in the queue whenever the
// run has to wait and each time the place changes. Cancelling ctx while
// waiting leaves the queue and returns ctx's error. The caller must
// Release the ticket it gets.
func (s *laneScheduler) Acquire(ctx context.Context, lane string, owner Owner, onPosition func(int)) (*ticket, error) {
	t, err := s.Enqueue(lane, owner)
	if err != nil {
		return nil, err
	}
	last := 0
	for {
		if pos := t.Position(); pos > 0 && pos != last && onPosition != nil {
			onPosition(pos)
			last = pos
		}
		select {
		case <-t.ready:
			return t, nil
		case <-t.moved:
		case <-ctx.Done():
			// If the slot was granted meanwhile, Release passes it on.
			t.Release()
			return nil, fmt.Errorf("wait for lane %s: %w", lane, ctx.Err())
		}
	}
}

// Ready is closed when the ticket holds its slot.
func (t *ticket) Ready() <-chan struct{} { return t.ready }

// Moved receives a value when the ticket's place in the queue changed.
func (t *ticket) Moved() <-chan struct{} { return t.moved }

// Lane returns the ticket's lane.
func (t *ticket) Lane() string { return t.lane }

// Position returns 0 while the ticket holds its slot, its 1-based place
// in the queue while it waits, and -1 once released.
func (t *ticket) Position() int {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if t.done {
		return -1
	}
	q := t.s.lanes[t.lane]
	if i := slices.Index(q.waiting, t); i >= 0 {
		return i + 1
	}
	return 0
}

// Release gives the slot back, or leaves the queue if the ticket is still
// waiting (a cancel while waiting). The next waiter gets the slot. Safe to
// call more than once.
func (t *ticket) Release() {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	q := s.lanes[t.lane]
	if i := slices.Index(q.holding, t); i >= 0 {
		q.holding = slices.Delete(q.holding, i, i+1)
		s.grant(t.lane, q)
		return
	}
	if i := slices.Index(q.waiting, t); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		for _, w := range q.waiting[i:] {
			notify(w.moved)
		}
	}
}

// SetLimit changes a lane's number of slots (a reloaded daokit.toml). A
// higher limit lets waiters in at once; a lower one takes effect as runs
// release their slots.
func (s *laneScheduler) SetLimit(lane string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[lane] = max(n, 1)
	s.grant(lane, s.queue(lane))
}

// laneStatus is a snapshot of one lane, for the window and the ledger.
type laneStatus struct {
	Lane    string
	Limit   int
	Holding []Owner // in the order they got their slot
	Waiting []Owner // first in line first
}

// Status returns a snapshot of lane.
func (s *laneScheduler) Status(lane string) laneStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := laneStatus{Lane: lane, Limit: s.limit(lane)}
	if q := s.lanes[lane]; q != nil {
		for _, t := range q.holding {
			st.Holding = append(st.Holding, t.owner)
		}
		for _, t := range q.waiting {
			st.Waiting = append(st.Waiting, t.owner)
		}
	}
	return st
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// laneSlots is the scheduler as the controller's run loop calls it.
type laneSlots struct{ s *laneScheduler }

func newLaneSlots(limits map[string]int) *laneSlots { return &laneSlots{newLaneScheduler(limits)} }

// acquire waits for a slot of lane and returns the function that gives it
// back.
func (l *laneSlots) acquire(ctx context.Context, lane string, onPosition func(int)) (release func(), err error) {
	t, err := l.s.Acquire(ctx, lane, Owner{}, onPosition)
	if err != nil {
		return nil, err
	}
	return t.Release, nil
}
