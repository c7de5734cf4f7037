package relay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// errConnLost means the connection a request went out on is gone before
// its answer came; the request is resent on the next one.
var errConnLost = errors.New("relay: connection lost")

// clientConn is one connection of a Client. Writers share it under wmu;
// one goroutine (readLoop) reads it.
type clientConn struct {
	nc      net.Conn
	hello   Hello
	maxLine int // the smaller of ours and the server's
	since   time.Time

	wmu    sync.Mutex
	once   sync.Once
	done   chan struct{} // closed by fail
	err    error         // why; written before done is closed
	onFail func(*clientConn)
	// detached is set, under the Client's mu, once fail has begun: such a
	// connection must never become current.
	detached bool
}

// write sends one line. A failed or timed-out write may have sent part of
// the line, so it ends the connection.
func (cn *clientConn) write(line []byte, timeout time.Duration) error {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	select {
	case <-cn.done:
		return errConnLost
	default:
	}
	_ = cn.nc.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := cn.nc.Write(line); err != nil {
		cn.fail(err)
		return errConnLost
	}
	return nil
}

// fail ends the connection once, recording why.
func (cn *clientConn) fail(err error) {
	cn.once.Do(func() {
		cn.err = err
		_ = cn.nc.Close()
		cn.onFail(cn)
		close(cn.done)
	})
}

// roundTrip sends env and waits for its answer, resending it with the same
// id on each new connection until an answer comes or ctx ends.
func (c *Client) roundTrip(ctx context.Context, env Envelope) (Envelope, error) {
	line, err := encodeLine(env)
	if err != nil {
		return Envelope{}, err
	}
	p, err := c.register(env)
	if err != nil {
		return Envelope{}, err
	}
	defer c.unregister(env.ID)
	for {
		cn, err := c.waitConn(ctx)
		if err != nil {
			return Envelope{}, fmt.Errorf("relay: %s %s: %w", env.Type, env.ID, err)
		}
		reply, err := c.exchange(ctx, cn, line, p)
		if errors.Is(err, errConnLost) {
			continue
		}
		if err != nil {
			return Envelope{}, fmt.Errorf("relay: %s %s: %w", env.Type, env.ID, err)
		}
		return reply, nil
	}
}

// exchange sends line on cn once and waits for the answer.
func (c *Client) exchange(ctx context.Context, cn *clientConn, line []byte, p *pending) (Envelope, error) {
	if len(line)-1 > cn.maxLine {
		return Envelope{}, &Error{Code: CodeTooLarge, Detail: fmt.Sprint(cn.maxLine)}
	}
	if err := cn.write(line, c.cfg.WriteTimeout); err != nil {
		return Envelope{}, err
	}
	select {
	case r := <-p.ch:
		return r, nil
	case <-cn.done:
		// The answer may have been read just before the connection went.
		select {
		case r := <-p.ch:
			return r, nil
		default:
			return Envelope{}, errConnLost
		}
	case <-ctx.Done():
		return Envelope{}, ctx.Err()
	case <-c.closed:
		return Envelope{}, ErrClosed
	}
}

// register makes room for env's answer. Two requests in flight with one
// id would get each other's answers, so the second is refused.
func (c *Client) register(env Envelope) (*pending, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[env.ID]; ok {
		return nil, &Error{Code: CodeBadRequest, Detail: "id"}
	}
	p := &pending{ch: make(chan Envelope, 1), observe: env.Type == TypeObserve}
	c.pending[env.ID] = p
	return p, nil
}

func (c *Client) unregister(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// waitConn returns the current connection, waiting for one if needed.
func (c *Client) waitConn(ctx context.Context) (*clientConn, error) {
	for {
		c.mu.Lock()
		cn, ready := c.cur, c.ready
		c.mu.Unlock()
		if cn != nil {
			return cn, nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, ErrClosed
		case <-c.refused:
			return nil, c.refusal
		}
	}
}

// refuse records a refusal of this user; see Client.refused.
func (c *Client) refuse(err error) {
	c.refusedOnce.Do(func() {
		c.refusal = err
		close(c.refused)
	})
}

// attach makes cn the current connection, unless the client is closing or
// cn has already failed (its reader may fail it before it is attached).
func (c *Client) attach(cn *clientConn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closed:
		return false
	default:
	}
	if cn.detached {
		return false
	}
	c.cur = cn
	close(c.ready)
	return true
}

// detach forgets cn. It runs inside cn.fail, before cn.done is closed, so
// a request that sees cn.done never finds cn current again, and attach
// refuses it from then on.
func (c *Client) detach(cn *clientConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cn.detached = true
	if c.cur == cn {
		c.cur = nil
		c.ready = make(chan struct{})
	}
}

// connect dials the server and reads its hello. The server speaks first:
// a hello, or the error that refuses us (another user, another version).
func (c *Client) connect(ctx context.Context) (*clientConn, error) {
	path := c.cfg.SocketPath
	if path == "" {
		var err error
		if path, err = ResolveSocket(c.root); err != nil {
			return nil, err
		}
	}
	d := net.Dialer{Timeout: c.cfg.DialTimeout}
	nc, err := d.DialContext(ctx, "unix", path)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		// The socket's private folder (0700) or the socket (0600)
		// belongs to another user: say so instead of timing out.
		return nil, &Error{Code: CodeForbiddenFolder, Detail: filepath.Dir(path)}
	}
	if err != nil {
		return nil, fmt.Errorf("relay: connect: %w", err)
	}
	// Close ends the handshake's read at once, rather than after its
	// deadline.
	stop := context.AfterFunc(ctx, func() { _ = nc.Close() })
	_ = nc.SetReadDeadline(time.Now().Add(c.cfg.DialTimeout))
	lr := newLineReader(nc, c.cfg.MaxLine)
	hello, err := c.handshake(lr)
	if !stop() {
		err = ctx.Err()
	}
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	_ = nc.SetReadDeadline(time.Time{})
	cn := &clientConn{
		nc:      nc,
		hello:   hello,
		maxLine: c.cfg.MaxLine,
		since:   time.Now(),
		done:    make(chan struct{}),
		onFail:  c.detach,
	}
	if hello.MaxLine > 0 {
		cn.maxLine = min(cn.maxLine, hello.MaxLine)
	}
	c.wg.Go(func() { c.readLoop(cn, lr) })
	return cn, nil
}

// handshake reads and checks the server's first line.
func (c *Client) handshake(lr *lineReader) (Hello, error) {
	var h Hello
	line, err := lr.next()
	if err != nil {
		return h, fmt.Errorf("relay: connect: %w", err)
	}
	env, _, perr := decodeEnvelope(line)
	switch {
	case perr != nil:
		return h, perr
	case env.Type == TypeError:
		e := &Error{Code: CodeInternal}
		_ = env.DecodeBody(e)
		return h, e
	case env.Type != TypeHello:
		return h, &Error{Code: CodeMalformed, Detail: string(env.Type)}
	}
	if err := env.DecodeBody(&h); err != nil {
		return h, &Error{Code: CodeMalformed, Detail: "hello"}
	}
	if c.root != "" && h.Root != "" && !sameDir(c.root, h.Root) {
		return h, &Error{Code: CodeWrongRoot, Detail: h.Root}
	}
	return h, nil
}

// readLoop reads the server's lines until the connection ends.
func (c *Client) readLoop(cn *clientConn, lr *lineReader) {
	for {
		line, err := lr.next()
		if err != nil {
			cn.fail(err)
			return
		}
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, outputPrefix) {
			c.queue.push("", true, len(line), inbound{raw: bytes.Clone(line)})
			continue
		}
		env, _, perr := decodeEnvelope(line)
		if perr != nil {
			cn.fail(perr)
			return
		}
		if err := c.receive(env, len(line)); err != nil {
			cn.fail(err)
			return
		}
	}
}

// receive routes one envelope from the server. It never blocks: notices go
// to the bounded queue, answers to their caller's buffered channel.
func (c *Client) receive(env Envelope, size int) error {
	switch {
	case env.Type == TypeNotice:
		var n Notice
		if env.DecodeBody(&n) != nil {
			// A notice this build cannot read is skipped, not fatal.
			return nil
		}
		if n.Kind == NoticeDropped {
			c.queue.pushLost(n.Dropped)
			return nil
		}
		key, droppable := n.queueKey()
		c.queue.push(key, droppable, size, inbound{n: n})
	case env.Type == TypeError && env.Re == "":
		// The server is closing this connection and says why.
		e := &Error{Code: CodeInternal}
		_ = env.DecodeBody(e)
		return e
	case env.Re != "":
		c.answer(env, size)
	}
	return nil
}

// answer hands env to the request it answers. The Status of an observe is
// queued as a notice here, in stream order, before any notice after it.
func (c *Client) answer(env Envelope, size int) {
	c.mu.Lock()
	p := c.pending[env.Re]
	if p != nil && p.observe && env.Type == TypeReply {
		c.observing = true
	}
	c.mu.Unlock()
	if p == nil {
		return // a late answer to a request that gave up
	}
	if p.observe && env.Type == TypeReply {
		var st Status
		if env.DecodeBody(&st) == nil {
			c.queue.push(string(NoticeStatus), false, size, inbound{n: Notice{Kind: NoticeStatus, Status: &st}})
		}
	}
	select {
	case p.ch <- env:
	default:
	}
}
