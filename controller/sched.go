package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// laneScheduler hands out the slots of each lane: at most the lane's
// concurrency limit of runs hold a slot at once, and the others wait in
// first-come, first-served order. Waiting is explicit: a ticket knows its
// place in the queue and is told when it moves. A lane without a
// configured limit has one slot. A laneScheduler is plain data: the
// controller's state loop owns it (laneSlots), and tests drive it from
// one goroutine.
type laneScheduler struct {
	limits map[string]int
	lanes  map[string]*laneQueue
	// queued are the runs that wait as data, by run.
	queued map[*run]*ticket
	// effects collects what the last change did to queued runs (tickets
	// with a run and no goroutine): which got their slot.
	effects laneEffects
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
	s := &laneScheduler{limits: map[string]int{}, lanes: map[string]*laneQueue{}, queued: map[*run]*ticket{}}
	for lane, n := range limits {
		s.limits[lane] = max(n, 1)
	}
	return s
}

// ticket is one place in a lane: waiting for a slot, then holding it,
// until Release. A goroutine that waits has ready and moved; a queued
// run that has no goroutine yet (see laneSlots.queue) has run instead,
// and is data until its slot is granted.
type ticket struct {
	s     *laneScheduler
	lane  string
	owner Owner
	ready chan struct{} // closed when the slot is granted
	moved chan struct{} // signalled when the place in the queue changes
	run   *run          // the queued run, for a ticket without a goroutine
	step  string        // the run's step that waits
	// recorded is closed once the queued run's first place in line is
	// recorded: nothing else of it happens before (see startOrQueue).
	recorded chan struct{}
	done     bool // released
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
	t := &ticket{s: s, lane: lane, owner: owner, ready: make(chan struct{}), moved: make(chan struct{}, 1)}
	return t, s.enqueue(t)
}

func (s *laneScheduler) enqueue(t *ticket) error {
	q := s.queue(t.lane)
	if t.owner.Valid() {
		for _, o := range slices.Concat(q.holding, q.waiting) {
			if o.owner == t.owner {
				return fmt.Errorf("enqueue %s on lane %s: %w", t.owner, t.lane, errAlreadyQueued)
			}
		}
	}
	q.waiting = append(q.waiting, t)
	if t.run != nil {
		s.queued[t.run] = t
	}
	s.grant(t.lane, q)
	return nil
}

// free reports whether a ticket for lane would get its slot at once.
func (s *laneScheduler) free(lane string) bool {
	q := s.lanes[lane]
	return q == nil || len(q.waiting) == 0 && len(q.holding) < s.limit(lane)
}

// grant gives free slots to the front of the queue and tells the rest
// they moved.
func (s *laneScheduler) grant(lane string, q *laneQueue) {
	moved := false
	for len(q.holding) < s.limit(lane) && len(q.waiting) > 0 {
		t := q.waiting[0]
		q.waiting = q.waiting[1:]
		q.holding = append(q.holding, t)
		t.granted()
		moved = true
	}
	if moved {
		for _, t := range q.waiting {
			t.movedOn()
		}
	}
}

func (t *ticket) granted() {
	if t.run != nil {
		delete(t.s.queued, t.run)
		t.s.effects.started = append(t.s.effects.started, t)
		return
	}
	close(t.ready)
}

// movedOn tells a waiting goroutine its place changed. A run queued as
// data hears nothing: only the place it entered at is recorded (see
// Controller.queued), and nothing of its pipeline depends on the place.
func (t *ticket) movedOn() {
	if t.run == nil {
		notify(t.moved)
	}
}

// takeEffects returns what the changes since the last call did to queued
// runs, and forgets it.
func (s *laneScheduler) takeEffects() laneEffects {
	e := s.effects
	s.effects = laneEffects{}
	return e
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
		if t.run != nil {
			delete(s.queued, t.run)
		}
		for _, w := range q.waiting[i:] {
			w.movedOn()
		}
	}
}

// SetLimit changes a lane's number of slots (a reloaded daokit.toml). A
// higher limit lets waiters in at once; a lower one takes effect as runs
// release their slots.
func (s *laneScheduler) SetLimit(lane string, n int) {
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

// laneEffects is what a change of the lanes did to queued runs that
// have no goroutine yet: the caller that made the change starts those
// that got their slot, outside the state loop.
type laneEffects struct {
	started []*ticket
}

// laneSlots is the scheduler as the controller's runs call it: owned by
// the controller's state loop (loopState.lanes), asked through requests.
type laneSlots struct {
	loop *stateLoop
	// apply carries out a request's effects on queued runs (the
	// controller's startQueued); nil in tests of the lanes alone.
	apply func(laneEffects)
}

// do runs f on the loop and carries out what it did to queued runs.
func (l *laneSlots) do(f func(s *laneScheduler)) bool {
	var effects laneEffects
	ran := l.loop.do(func(st *loopState) {
		f(st.lanes)
		effects = st.lanes.takeEffects()
	})
	if l.apply != nil && len(effects.started) > 0 {
		l.apply(effects)
	}
	return ran
}

// acquire waits for a slot of lane and returns the function that gives it
// back. onPosition, if set, is called from the calling goroutine with the
// 1-based place in the queue whenever the run has to wait and each time
// the place changes. Cancelling ctx while waiting leaves the queue and
// returns ctx's error.
func (l *laneSlots) acquire(ctx context.Context, lane string, onPosition func(int)) (release func(), err error) {
	var t *ticket
	if !l.do(func(s *laneScheduler) { t, err = s.Enqueue(lane, Owner{}) }) {
		return nil, fmt.Errorf("wait for lane %s: %w", lane, errLanesStopped)
	}
	if err != nil {
		return nil, err
	}
	release = func() { l.do(func(*laneScheduler) { t.Release() }) }
	last := 0
	for {
		var pos int
		l.do(func(*laneScheduler) { pos = t.Position() })
		if pos > 0 && pos != last && onPosition != nil {
			onPosition(pos)
			last = pos
		}
		select {
		case <-t.ready:
			return release, nil
		case <-t.moved:
		case <-ctx.Done():
			// If the slot was granted meanwhile, Release passes it on.
			release()
			return nil, fmt.Errorf("wait for lane %s: %w", lane, ctx.Err())
		}
	}
}

// errLanesStopped is returned for a wait asked of lanes whose loop ended
// (the controller is shutting down).
var errLanesStopped = errors.New("the lanes are stopped")

// queue takes a place in lane's queue for r, whose step waits for it,
// as data: no goroutine waits for it, and apply's started gets it when
// its slot is granted, once recorded is closed. It returns the ticket
// and r's place in line; place 0 is a slot free now, which r holds at
// once, and whose run the caller starts itself.
func (l *laneSlots) queue(r *run, step, lane string, recorded chan struct{}) (*ticket, int) {
	var t *ticket
	pos := 0
	l.do(func(s *laneScheduler) {
		t = &ticket{s: s, lane: lane, run: r, step: step, recorded: recorded}
		if s.free(lane) {
			q := s.queue(lane)
			q.holding = append(q.holding, t)
			return
		}
		if s.enqueue(t) != nil {
			t = nil
			return
		}
		pos = t.Position()
	})
	return t, pos
}

// withdraw takes r out of the line it waits in as data (it was cancelled
// or dropped while it waited) and returns its ticket: nobody will start
// the run but the caller. It returns nil for a run that does not wait as
// data.
func (l *laneSlots) withdraw(r *run) *ticket {
	var t *ticket
	l.do(func(s *laneScheduler) {
		if t = s.queued[r]; t != nil {
			t.Release()
		}
	})
	return t
}

// releaseTicket gives back a queued run's slot, once its goroutine is
// done with it or never needed it.
func (l *laneSlots) releaseTicket(t *ticket) { l.do(func(*laneScheduler) { t.Release() }) }
