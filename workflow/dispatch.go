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

// subscriber is one callback and its queue.
type subscriber struct {
	cb      Callback
	ch      chan event
	dropped atomic.Int64
	panics  atomic.Int64
	// lineRoom is how full the queue may be for a line to join it.
	lineRoom int
	done     chan struct{}
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
		s := &subscriber{cb: cb, ch: make(chan event, queue), done: make(chan struct{}), lineRoom: queue - queue/4}
		d.subs = append(d.subs, s)
		go s.loop()
	}
	return d
}

func (d *dispatcher) send(e event) {
	line := e.kind == evText || e.kind == evToolUse
	for _, s := range d.subs {
		// Lines give way first: the last quarter of a queue is kept for
		// the agent and iteration events, so a callback that is merely
		// slow under a flood of output still sees every start and end.
		if line && len(s.ch) >= s.lineRoom {
			s.dropped.Add(1)
			continue
		}
		select {
		case s.ch <- e:
		default:
			s.dropped.Add(1)
		}
	}
}

// stop lets every callback finish its queue, waiting at most drain in
// all, and returns the counts.
func (d *dispatcher) stop(drain time.Duration) DispatchStats {
	for _, s := range d.subs {
		close(s.ch)
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

func (s *subscriber) loop() {
	defer close(s.done)
	for e := range s.ch {
		s.call(e)
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
