package workflow

import (
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of callback dispatch.
const (
	// DefaultQueue is how many events wait for a slow callback before
	// more are dropped (and counted).
	DefaultQueue = 1024
	// DefaultDrain is how long the end of a flow waits for its callbacks
	// to catch up; a callback still busy then is left behind, not waited
	// for.
	DefaultDrain = 2 * time.Second
)

type eventKind uint8

const (
	evAgentStart eventKind = iota
	evToolUse
	evToolResult
	evText
	evAgentEnd
	evAgentFailed
	evIterationStart
	evIterationEnd
)

// event is one callback call on its way. It is passed by value through
// the queues, so that a line of output costs no allocation.
type event struct {
	kind  eventKind
	agent AgentInfo
	text  Text
	tool  ToolUse
	// result is set for evToolResult only: tool results are few next to
	// lines, so they may cost an allocation and keep event small.
	result *ToolResult
	out    *Output
	err    error
	iter   Iteration
	res    *IterationResult
}

// DispatchStats counts what callback dispatch could not deliver.
type DispatchStats struct {
	// Dropped counts events dropped because a callback's queue was full.
	Dropped int64
	// Panics counts callback calls that panicked (recovered).
	Panics int64
	// Abandoned counts callbacks still busy when the flow ended.
	Abandoned int
}

// subscriber is one callback and its queue. The queue holds what is
// waiting and grows with it, up to its cap, and a goroutine calls the
// callback only while something waits: a flow that waits (for its lane,
// say) costs neither queue nor goroutine, and a busy one only what its
// callbacks are behind by.
type subscriber struct {
	cb Callback
	// filter is cb as a LineFilter, or nil: it hears every line.
	filter  LineFilter
	dropped atomic.Int64
	panics  atomic.Int64
	// limit is how many events may wait (queued or in the batch being
	// called); lineRoom how many may wait for a line to join them.
	limit, lineRoom int
	// backlog counts the events waiting, the loop's batch included.
	backlog atomic.Int64
	mu      sync.Mutex
	pending []event // guarded by mu
	spare   []event // the loop's last batch, emptied; guarded by mu
	running bool    // a loop goroutine calls the callback; guarded by mu
	closed  bool    // no more events; guarded by mu
	// done is closed once the subscriber is closed and its queue empty.
	done chan struct{}
}

// dispatcher hands each event to every callback's queue without ever
// waiting: a full queue drops the event for that callback only.
type dispatcher struct {
	subs []*subscriber
}

// callbacks is what Sequential and Loop keep of AddCallback.
type callbacks struct {
	mu    sync.Mutex
	list  []Callback
	queue int
	drain time.Duration
}

// AddCallback attaches an observer to every later run.
func (c *callbacks) AddCallback(cb Callback) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, cb)
}

// SetDispatch sets the queue length per callback and how long the end of
// a run waits for callbacks to catch up (zero: the defaults).
func (c *callbacks) SetDispatch(queue int, drain time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue, c.drain = queue, drain
}

func (c *callbacks) snapshot() ([]Callback, int, time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, d := c.queue, c.drain
	if q <= 0 {
		q = DefaultQueue
	}
	if d <= 0 {
		d = DefaultDrain
	}
	return append([]Callback(nil), c.list...), q, d
}

func startDispatcher(cbs []Callback, queue int) *dispatcher {
	d := &dispatcher{}
	for _, cb := range cbs {
		s := &subscriber{cb: cb, limit: queue, lineRoom: queue - queue/4, done: make(chan struct{})}
		s.filter, _ = cb.(LineFilter)
		d.subs = append(d.subs, s)
	}
	return d
}

func (d *dispatcher) send(e event) {
	line := e.kind == evText || e.kind == evToolUse
	for _, s := range d.subs {
		s.offer(e, line)
	}
}

// offer queues e unless the queue is full. Lines give way first: the last
// quarter of a queue is kept for the agent and iteration events, so a
// callback that is merely slow under a flood of output still sees every
// start and end.
func (s *subscriber) offer(e event, line bool) {
	room := s.limit
	if line {
		if !s.wants(e.kind, &e.text) {
			return
		}
		room = s.lineRoom
	}
	if s.backlog.Load() >= int64(room) {
		s.dropped.Add(1)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.backlog.Add(1)
	s.pending = append(s.pending, e)
	start := !s.running
	s.running = true
	s.mu.Unlock()
	if start {
		go s.loop()
	}
}

// stop lets every callback finish its queue, waiting at most drain in
// all, and returns the counts.
func (d *dispatcher) stop(drain time.Duration) DispatchStats {
	for _, s := range d.subs {
		s.close()
	}
	deadline := time.NewTimer(drain)
	defer deadline.Stop()
	var st DispatchStats
	late := false
	for _, s := range d.subs {
		if !late {
			select {
			case <-s.done:
				continue
			case <-deadline.C:
				late = true
			}
		}
		// Past the deadline the remaining callbacks get no wait.
		select {
		case <-s.done:
		default:
			st.Abandoned++
		}
	}
	for _, s := range d.subs {
		st.Dropped += s.dropped.Load()
		st.Panics += s.panics.Load()
	}
	return st
}

// wants reports whether the callback wants the line or tool use e.
func (s *subscriber) wants(kind eventKind, text *Text) bool {
	switch {
	case s.filter == nil:
		return true
	case kind == evText:
		return s.filter.WantsText(*text)
	}
	return s.filter.WantsToolUse()
}

// close refuses further events; done is closed once the queue is empty.
func (s *subscriber) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if !s.running {
		close(s.done)
	}
}

// loop calls the callback with what waits, a batch at a time (one lock
// per batch; the batch's slice comes back as the next queue), and ends
// when nothing waits. One loop runs at a time, so calls keep their order.
func (s *subscriber) loop() {
	for {
		s.mu.Lock()
		batch := s.pending
		if len(batch) == 0 {
			s.running = false
			if s.closed {
				close(s.done)
			}
			s.mu.Unlock()
			return
		}
		s.pending, s.spare = s.spare, nil
		s.mu.Unlock()
		for i := range batch {
			s.call(batch[i])
			batch[i] = event{} // what it points to may go
			s.backlog.Add(-1)
		}
		s.mu.Lock()
		s.spare = batch[:0]
		s.mu.Unlock()
	}
}

// call makes one callback call; a panic is recovered and counted.
func (s *subscriber) call(e event) {
	defer func() {
		if recover() != nil {
			s.panics.Add(1)
		}
	}()
	cb := s.cb
	switch e.kind {
	case evAgentStart:
		cb.OnAgentStart(e.agent)
	case evToolUse:
		cb.OnToolUse(e.agent, e.tool)
	case evToolResult:
		cb.OnToolResult(e.agent, *e.result)
	case evText:
		cb.OnText(e.agent, e.text)
	case evAgentEnd:
		cb.OnAgentEnd(e.agent, *e.out)
	case evAgentFailed:
		cb.OnAgentFailed(e.agent, e.err)
	case evIterationStart:
		cb.OnIterationStart(e.iter)
	case evIterationEnd:
		cb.OnIterationEnd(e.iter, *e.res)
	}
}

// Observer reports one agent's text and tool use to the flow's
// callbacks. A nil Observer drops everything.
type Observer struct {
	d *dispatcher
	a AgentInfo
}

// Text reports a line or message.
func (o *Observer) Text(t Text) {
	if o == nil {
		return
	}
	o.d.send(event{kind: evText, agent: o.a, text: t})
}

// ToolUse reports a tool call.
func (o *Observer) ToolUse(t ToolUse) {
	if o == nil {
		return
	}
	o.d.send(event{kind: evToolUse, agent: o.a, tool: t})
}

// ToolResult reports how a tool call ended. Results are not shed like
// lines under a flood: the facts of a step (tests failing, edits that
// applied) are read from them.
func (o *Observer) ToolResult(r ToolResult) {
	if o == nil {
		return
	}
	o.d.send(event{kind: evToolResult, agent: o.a, result: &r})
}
