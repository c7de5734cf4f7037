package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/daokit/daokit/backoff"
)

// Server is the controller's end of the relay: it accepts connections,
// refuses other users, decodes requests, calls the Handler, and pushes
// notices. Build one with NewServer and run it with Serve.
type Server struct {
	h   Handler
	cfg ServerConfig
	uid uint32

	mu       sync.RWMutex
	conns    map[*conn]struct{}
	live     int           // conns not evicted
	silent   silentList    // conns without a complete line yet, oldest first
	connCap  int           // see connCap
	churn    int           // connections opened since memory was last handed back
	release  *time.Timer   // armed while a flood's last connections leave; see floodOver
	gone     chan struct{} // a tracked connection's goroutines ended; see waitWinding
	serving  bool
	closing  bool // no new connections are tracked
	nextConn uint64
	// observers counts the conns admitted as observers, at most
	// observerCap (see admitObserver).
	observers, observerCap int

	flights   flightGroup[Ack]
	opFlights flightGroup[Outcome]
	dropped   atomic.Uint64
	refused   atomic.Uint64 // connections refused at the cap
	evicted   atomic.Uint64 // silent connections closed to make room

	stop     chan struct{} // closed by Close
	stopOnce sync.Once
	done     chan struct{} // closed when Serve has returned
}

// NewServer returns a Server that hands requests to h.
func NewServer(h Handler, cfg ServerConfig) (*Server, error) {
	if h == nil {
		return nil, errors.New("relay: new server: nil handler")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	capacity := connCap(cfg)
	return &Server{
		h:           h,
		cfg:         cfg,
		connCap:     capacity,
		observerCap: observerCap(capacity, cfg.RequestReserve),
		uid:         uint32(os.Getuid()),
		conns:       make(map[*conn]struct{}),
		gone:        make(chan struct{}, 1),
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}, nil
}

// Serve accepts connections on l until ctx ends or Close is called, then
// closes l and every connection, waits for all of their goroutines, and
// returns nil. It returns ErrServerClosed if Close came first, and an
// error if accepting failed for good. A Server serves one listener, once.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.mu.Lock()
	if s.serving || s.closing {
		s.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	s.serving = true
	s.mu.Unlock()
	defer close(s.done)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// Closing the listener is the only way to interrupt Accept.
	wg.Go(func() {
		select {
		case <-ctx.Done():
		case <-s.stop:
		}
		cancel()
		_ = l.Close()
		s.closeConns()
	})
	err := s.acceptLoop(ctx, l, &wg)
	cancel()
	wg.Wait()
	return err
}

// acceptLoop runs until ctx ends (nil) or Accept fails for good.
func (s *Server) acceptLoop(ctx context.Context, l net.Listener, wg *sync.WaitGroup) error {
	var delay time.Duration
	for {
		if !s.waitWinding(ctx) {
			return nil
		}
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("relay: accept: %w", err)
			}
			// Out of file descriptors and the like: wait a little, as
			// net/http does, rather than spin or give up.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.cfg.Logger.Warn("relay: accept failed", "err", err, "retry_in", delay)
			if !backoff.Sleep(ctx, delay) {
				return nil
			}
			continue
		}
		delay = 0
		c, busy := s.track(nc)
		if busy {
			s.refuseBusy(nc)
			continue
		}
		if c == nil {
			_ = nc.Close()
			continue
		}
		wg.Go(func() {
			defer s.untrack(c)
			c.serve(ctx)
		})
	}
}

// Close stops the server: Serve returns once every connection and handler
// call has finished. Close may be called more than once, and before Serve.
func (s *Server) Close() error {
	s.stopOnce.Do(func() { close(s.stop) })
	s.mu.Lock()
	serving := s.serving
	s.closing = true
	if s.release != nil {
		s.release.Stop()
	}
	s.mu.Unlock()
	if serving {
		<-s.done
	}
	return nil
}

// track registers a new connection; busy means the server is at its
// cap with no silent connection to displace.
func (s *Server) track(nc net.Conn) (c *conn, busy bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, false
	}
	if !s.admit() {
		return nil, true
	}
	s.nextConn++
	s.churn++
	c = newConn(s, s.nextConn, nc)
	s.conns[c] = struct{}{}
	s.live++
	c.silentAt = s.silent.PushBack(c)
	return c, false
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if c.silentAt != nil {
		s.silent.Remove(c.silentAt)
		c.silentAt = nil
	}
	if !c.evicted {
		s.live--
	}
	if c.observer {
		c.observer = false
		s.observers--
	}
	s.floodOver()
	s.mu.Unlock()
	select {
	case s.gone <- struct{}{}:
	default:
	}
}

// closeConns closes every connection, which ends their reads and writes.
func (s *Server) closeConns() {
	s.mu.Lock()
	s.closing = true
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
}

// Stats is a snapshot of a Server's connections and notice queues.
type Stats struct {
	// Conns is the number of open connections, Observers those that
	// receive notices.
	Conns, Observers int
	// Queued is the number of notices waiting in all queues; PeakQueued
	// the most one open connection's queue ever held.
	Queued, PeakQueued int
	// Dropped counts the notices lost to slow readers since the start.
	Dropped uint64
	// Cap is the connection cap in force (see ServerConfig.MaxConns).
	// Refused counts connections refused at the cap (and observes beyond
	// the observers' share), Evicted silent connections closed to make
	// room for new ones, since the start.
	Cap              int
	Refused, Evicted uint64
}

// Stats returns a snapshot of the server's state, for diagnostics.
func (s *Server) Stats() Stats {
	st := Stats{Dropped: s.dropped.Load(), Cap: s.connCap, Refused: s.refused.Load(), Evicted: s.evicted.Load()}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for c := range s.conns {
		st.Conns++
		if c.observing.Load() {
			st.Observers++
		}
		st.Queued += c.notices.len()
		st.PeakQueued = max(st.PeakQueued, c.notices.peak())
	}
	return st
}
