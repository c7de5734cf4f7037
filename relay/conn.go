package relay

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// conn is one client connection on the server. Two goroutines own it: the
// one running serve reads and handles requests in order, and writeLoop
// writes answers and notices. Answers go through replies and are written
// before any queued notice, so an ack never waits behind a flood.
type conn struct {
	s    *Server
	id   uint64
	nc   net.Conn
	peer Peer

	replies chan []byte // closed by the reader when it is done
	notices *noticeQueue[[]byte]
	// observing: Notify queues notices for this connection.
	observing atomic.Bool
	// holding: the writer leaves notices queued while an observe is being
	// answered, so the Status goes out before the notices that follow it.
	holding atomic.Bool
	wdone   chan struct{} // closed when writeLoop has returned
	// silentAt is the connection's place in Server.silent until it sends
	// a complete line; evicted is set when the server closed it to make
	// room. Both are guarded by Server.mu.
	silentAt *list.Element
	evicted  bool
	// observer: the connection holds one of the observers' slots
	// (Server.observers). Guarded by Server.mu.
	observer bool
}

func newConn(s *Server, id uint64, nc net.Conn) *conn {
	return &conn{
		s:       s,
		id:      id,
		nc:      nc,
		replies: make(chan []byte, 8),
		notices: newNoticeQueue[[]byte](s.cfg.NoticeQueue, s.cfg.NoticeQueueBytes, &s.dropped),
		wdone:   make(chan struct{}),
	}
}

// serve runs the connection to its end and closes it.
func (c *conn) serve(ctx context.Context) {
	defer c.nc.Close()
	log := c.s.cfg.Logger.With("conn", c.id)
	peer, err := peerCred(c.nc)
	if err != nil || peer.UID != c.s.uid {
		log.Warn("relay: refused peer", "uid", peer.UID, "pid", peer.PID, "err", err)
		c.refuse()
		return
	}
	c.peer = peer
	log.Debug("relay: connected", "pid", peer.PID)
	go c.writeLoop()
	c.send(answer(TypeHello, "", c.s.hello()))
	err = c.readLoop(ctx)
	log.Debug("relay: disconnected", "err", err)
	// The reader is the only sender on replies; closing it tells the
	// writer to flush what is left (a final error reply) and stop.
	close(c.replies)
	<-c.wdone
}

func (s *Server) hello() Hello {
	return Hello{Server: "daokit", PID: os.Getpid(), Root: s.cfg.Root, MaxLine: s.cfg.MaxLine}
}

// refuse tells a peer of another user why it is being dropped. Nothing
// else is read from it or written to it.
func (c *conn) refuse() {
	line, err := encodeLine(answer(TypeError, "", &Error{Code: CodeForbiddenPeer}))
	if err != nil {
		return
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.s.cfg.WriteTimeout))
	_, _ = c.nc.Write(line)
}

// readLoop reads and handles lines until the peer goes away or a line
// breaks the protocol, and returns why it stopped.
func (c *conn) readLoop(ctx context.Context) error {
	dr := &deadlineReader{c: c}
	lr := newLineReader(dr, c.s.cfg.MaxLine)
	dr.lr = lr
	spoke := false
	for {
		line, err := lr.next()
		if te := dr.timeoutError(err); te != nil {
			c.sendError("", te)
			return err
		}
		if err == nil && !spoke {
			spoke = true
			c.s.spoke(c)
		}
		if errors.Is(err, errLineTooLong) {
			c.sendError("", &Error{Code: CodeTooLarge, Detail: fmt.Sprint(c.s.cfg.MaxLine)})
			return err
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if len(line) == 0 {
			continue
		}
		if err := c.handleLine(ctx, line); err != nil {
			return err
		}
	}
}

// handleLine handles one line, and returns an error when the connection
// must close: the line broke the protocol and was answered with an error.
func (c *conn) handleLine(ctx context.Context, line []byte) error {
	env, id, perr := decodeEnvelope(line)
	if perr == nil {
		// A type we do not know means a peer we do not understand, which
		// closes the connection; checkRequest's errors do not.
		if _, ok := requestAction[env.Type]; !ok {
			perr = &Error{Code: CodeUnknownType, Detail: string(env.Type)}
		} else if err := checkRequest(env); err != nil {
			perr = wireError(err)
		}
	}
	if perr != nil {
		c.sendError(id, perr)
		if perr.Code.closesConn() {
			return perr
		}
		return nil
	}
	return c.s.dispatch(ctx, c, env)
}

func (c *conn) sendError(re string, e *Error) {
	c.send(answer(TypeError, re, e))
}

// send queues an answer for the writer. It may block while the writer is
// busy, which is the backpressure a client that pipelines deserves; it
// cannot block for ever, since a writer that fails keeps draining. An
// answer over the line cap (a huge Status) would make the client drop the
// connection and ask again, for ever; it gets too_large instead.
func (c *conn) send(e Envelope) {
	line, err := encodeLine(e)
	switch {
	case err != nil:
		line, _ = encodeLine(answer(TypeError, e.Re, &Error{Code: CodeInternal}))
	case len(line)-1 > c.s.cfg.MaxLine:
		line, _ = encodeLine(answer(TypeError, e.Re, &Error{Code: CodeTooLarge, Detail: fmt.Sprint(c.s.cfg.MaxLine)}))
	}
	c.replies <- line
}
