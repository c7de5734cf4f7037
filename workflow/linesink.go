package workflow

import (
	"io"
	"sync"
	"sync/atomic"
)

// LineSink hands lines to one writer (a callback's stdin, a log file) on
// a goroutine of its own, through a bounded queue: Offer never waits, and
// a line that finds the queue full, or a writer that refused a write, is
// dropped and counted. This is the isolation the built-in callbacks have
// (see dispatch), for observers outside the process.
type LineSink struct {
	mu     sync.Mutex
	q      chan []byte
	closed bool // guarded by mu; q is closed with it
	// dropped counts lines not written: queue full, or writer gone.
	dropped atomic.Int64
	// failed: the writer refused a write; every later line is dropped.
	failed  atomic.Bool
	written atomic.Int64
	w       io.Writer
	// gone is called once, on the writer's first refused write.
	gone     func(error)
	goneOnce sync.Once
	done     chan struct{}
}

// NewLineSink starts a sink writing to w with room for queue lines;
// gone, if not nil, hears the first write w refused (the sink drops what
// follows).
func NewLineSink(w io.Writer, queue int, gone func(error)) *LineSink {
	if queue < 1 {
		queue = DefaultQueue
	}
	s := &LineSink{q: make(chan []byte, queue), w: w, gone: gone, done: make(chan struct{})}
	go s.loop()
	return s
}

// Offer queues line (which nobody may change from now on) without waiting;
// it reports false when the line was dropped.
func (s *LineSink) Offer(line []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.dropped.Add(1)
		return false
	}
	select {
	case s.q <- line:
		return true
	default:
		s.dropped.Add(1)
		return false
	}
}

// Shed implements Shedder: when a line offered now would be dropped
// (the queue is full, the writer gone), it counts it dropped and reports
// true, so that the line need not be made at all.
func (s *LineSink) Shed() bool {
	if s.failed.Load() || len(s.q) == cap(s.q) {
		s.dropped.Add(1)
		return true
	}
	return false
}

// Dropped returns how many lines were not written.
func (s *LineSink) Dropped() int64 { return s.dropped.Load() }

// Written returns how many lines the writer took.
func (s *LineSink) Written() int64 { return s.written.Load() }

// Done is closed once the sink is closed and its goroutine has ended.
func (s *LineSink) Done() <-chan struct{} { return s.done }

// CloseQueue refuses further lines; the sink's goroutine writes what
// waits and ends (Done).
func (s *LineSink) CloseQueue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.q)
	}
}

func (s *LineSink) loop() {
	defer close(s.done)
	failed := false
	for line := range s.q {
		if failed {
			s.dropped.Add(1)
			continue
		}
		if _, err := s.w.Write(line); err != nil {
			failed = true
			s.failed.Store(true)
			s.dropped.Add(1)
			s.fail(err)
			continue
		}
		s.written.Add(1)
	}
}

// fail reports the writer gone, once.
func (s *LineSink) fail(err error) {
	s.goneOnce.Do(func() {
		if s.gone != nil {
			s.gone(err)
		}
	})
}
