package relay

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"syscall"
	"time"
)

// connCap is the number of connections the server serves at once:
// MaxConns, lowered so that FDReserve descriptors below RLIMIT_NOFILE
// stay free for workers, pipes, logs and the ledger.
func connCap(cfg ServerConfig) int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return cfg.MaxConns
	}
	return max(1, min(cfg.MaxConns, int(rl.Cur)-cfg.FDReserve))
}

// admit makes room for a new connection at the cap: the oldest
// connection that has not sent a complete line yet (opened and left
// silent, or dribbling) is closed to make room, so a flood of idle
// connections never locks out a client that talks. It reports false
// when every connection is in use; the caller refuses the new one.
// Called with s.mu held.
func (s *Server) admit() bool {
	if s.live < s.connCap {
		return true
	}
	e := s.silent.Front()
	if e == nil {
		return false
	}
	victim := e.Value.(*conn)
	s.silent.Remove(e)
	victim.silentAt = nil
	victim.evicted = true
	s.live--
	s.evicted.Add(1)
	_ = victim.nc.Close()
	return true
}

// observerCap is how many connections may observe at once: the cap less
// the slots kept for requests, a quarter of the cap at most, so that a
// small cap still has room for observers.
func observerCap(capacity, reserve int) int {
	return max(1, capacity-min(reserve, capacity/4))
}

// admitObserver gives c one of the observers' slots, unless it holds one
// already, and reports false when they are all taken: observers that
// never read must not fill the slots a request needs.
func (s *Server) admitObserver(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.observer {
		return true
	}
	if s.observers >= s.observerCap {
		s.refused.Add(1)
		return false
	}
	c.observer = true
	s.observers++
	return true
}

// releaseObserver gives c's observer slot back (an observe that failed).
func (s *Server) releaseObserver(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.observer {
		c.observer = false
		s.observers--
	}
}

// floodChurn is how many connections must come and go before the server
// hands their memory back to the system at once.
const floodChurn = 2048

// maxWinding is how many evicted connections may still be winding down
// (their goroutines not yet returned) before the server accepts another.
// Without it a flood on a loaded machine outpaces the exits: goroutines
// pile up without bound, and the runtime never frees a goroutine's
// descriptor, so the memory of the worst moment stays for good.
const maxWinding = 64

// waitWinding holds the accept loop while maxWinding evicted connections
// are still winding down; new clients wait in the listen backlog for
// that moment. It reports false when ctx ends first.
func (s *Server) waitWinding(ctx context.Context) bool {
	for {
		s.mu.Lock()
		winding := len(s.conns) - s.live
		s.mu.Unlock()
		if winding < maxWinding {
			return true
		}
		select {
		case <-s.gone:
		case <-ctx.Done():
			return false
		}
	}
}

// floodQuiet is how long no connection may close before the memory a
// flood took is handed back: the flood's last goroutines and buffers must
// be gone when the collector runs, or the heap goal stays high and the
// scavenger keeps pages for the garbage they leave.
const floodQuiet = 250 * time.Millisecond

// floodOver hands the memory of a burst of at least floodChurn
// connections back to the system at once, rather than over minutes by
// the runtime's scavenger, once the burst has gone again (a handful
// remain, such as the windows) and connections stopped closing for
// floodQuiet. Each close in the tail of the flood pushes the release
// back. Called with s.mu held.
func (s *Server) floodOver() {
	if s.churn < floodChurn || s.live > 16 || s.closing {
		return
	}
	if s.release == nil {
		s.release = time.AfterFunc(floodQuiet, s.releaseMemory)
		return
	}
	s.release.Reset(floodQuiet)
}

// releaseMemory runs once the flood's tail is quiet.
func (s *Server) releaseMemory() {
	s.mu.Lock()
	if s.closing || s.live > 16 {
		s.mu.Unlock()
		return
	}
	s.churn = 0
	s.mu.Unlock()
	debug.FreeOSMemory()
}

// spoke records that c sent a complete line: it is no longer a
// candidate for eviction.
func (s *Server) spoke(c *conn) {
	s.mu.Lock()
	if c.silentAt != nil {
		s.silent.Remove(c.silentAt)
		c.silentAt = nil
	}
	s.mu.Unlock()
}

// refuseBusy tells a connection over the cap why it is closed. The
// socket is fresh, so the short write cannot block for long.
func (s *Server) refuseBusy(nc net.Conn) {
	s.refused.Add(1)
	s.cfg.Logger.Debug("relay: refused connection at the cap", "cap", s.connCap)
	if line, err := encodeLine(answer(TypeError, "", &Error{Code: CodeBusy, Detail: fmt.Sprint(s.connCap)})); err == nil {
		_ = nc.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_, _ = nc.Write(line)
	}
	_ = nc.Close()
}

// silentList is the connections that have not sent a complete line,
// oldest first.
type silentList = list.List

// deadlineReader sets the connection's read deadline before each read:
// a line that has started must end within ReadTimeout of its first
// byte, and a connection that neither observes nor has a line under way
// gets IdleTimeout. Observers (windows) wait for ever.
type deadlineReader struct {
	c         *conn
	lr        *lineReader
	lineStart time.Time
	// inLine is whether the last read waited inside a line; the line
	// reader drops its partial line when the read fails.
	inLine bool
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	cfg := &d.c.s.cfg
	inLine := d.lr.inLine()
	d.inLine = inLine
	var deadline time.Time
	switch {
	case inLine:
		deadline = d.lineStart.Add(cfg.ReadTimeout)
	case !d.c.observing.Load():
		deadline = time.Now().Add(cfg.IdleTimeout)
	}
	_ = d.c.nc.SetReadDeadline(deadline)
	n, err := d.c.nc.Read(p)
	if n > 0 && !inLine {
		d.lineStart = time.Now()
	}
	return n, err
}

// timeoutError turns a read that hit its deadline into the error the
// client is told: slow inside a line, idle between lines.
func (d *deadlineReader) timeoutError(err error) *Error {
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return nil
	}
	if d.inLine {
		return &Error{Code: CodeSlow, Detail: d.c.s.cfg.ReadTimeout.String()}
	}
	return &Error{Code: CodeIdle, Detail: d.c.s.cfg.IdleTimeout.String()}
}
