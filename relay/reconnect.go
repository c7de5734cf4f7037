package relay

import (
	"context"
	"time"

	"github.com/daokit/daokit/backoff"
)

// ConnState is a Client's connection state, for the window's status line.
type ConnState int

// Connection states, in the order a client usually goes through them.
const (
	// StateConnecting: the first attempt is under way.
	StateConnecting ConnState = iota
	// StateConnected: requests go through.
	StateConnected
	// StateDisconnected: the connection just dropped; a new attempt
	// follows at once.
	StateDisconnected
	// StateReconnecting: Attempt attempts have failed in a row; the next
	// one starts after Delay.
	StateReconnecting
	// StateClosed: Close was called. This is the last state.
	StateClosed
)

// String returns the state's stable name (connecting, connected, …), for
// logs; the window translates states itself.
func (s ConnState) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateDisconnected:
		return "disconnected"
	case StateReconnecting:
		return "reconnecting"
	case StateClosed:
		return "closed"
	}
	return "unknown"
}

// StateChange is one change of a Client's connection state.
type StateChange struct {
	State ConnState
	// Attempt counts failed attempts since the last good connection
	// (StateReconnecting only).
	Attempt int
	// Delay is the wait before the next attempt (StateReconnecting only).
	Delay time.Duration
	// Err is why the connection dropped or the last attempt failed.
	Err error
}

// stableAfter is how long a connection must last for its success to reset
// the backoff; a server that accepts and drops at once must not make its
// clients spin.
const stableAfter = time.Second

// run is the connection manager: the one goroutine that dials, waits
// for the connection to drop, and dials again, until ctx ends.
func (c *Client) run(ctx context.Context) {
	failures := 0
	c.publish(StateChange{State: StateConnecting})
	for {
		cn, err := c.connect(ctx)
		if err == nil {
			err = c.hold(ctx, cn)
			if ctx.Err() != nil {
				return
			}
			c.publish(StateChange{State: StateDisconnected, Err: err})
			if time.Since(cn.since) >= stableAfter {
				failures = 0
				continue
			}
		}
		if ctx.Err() != nil {
			return
		}
		if Refused(err) {
			c.refuse(err)
		}
		failures++
		// Equal jitter, so that windows restarted together do not
		// reconnect in step.
		d := backoff.Capped{Base: c.cfg.MinBackoff, Max: c.cfg.MaxBackoff}.Jittered(failures-1, nil)
		c.cfg.Logger.Debug("relay: reconnecting", "attempt", failures, "delay", d, "err", err)
		c.publish(StateChange{State: StateReconnecting, Attempt: failures, Delay: d, Err: err})
		if !backoff.Sleep(ctx, d) {
			return
		}
	}
}

// hold serves one connection until it drops (or ctx ends), and returns
// why it dropped.
func (c *Client) hold(ctx context.Context, cn *clientConn) error {
	if !c.attach(cn) {
		cn.fail(ErrClosed) // a no-op if it failed already
		<-cn.done
		return cn.err
	}
	c.publish(StateChange{State: StateConnected})
	c.mu.Lock()
	observing := c.observing
	c.mu.Unlock()
	if observing {
		c.wg.Go(func() { c.resubscribe(ctx, cn) })
	}
	select {
	case <-cn.done:
	case <-ctx.Done():
		cn.fail(ErrClosed)
	}
	return cn.err
}

// resubscribe observes again on a new connection, so that notices resume
// and a fresh Status reaches Notices. If the connection drops first, the
// next one does it again.
func (c *Client) resubscribe(ctx context.Context, cn *clientConn) {
	env := Envelope{V: Version, ID: NewID(), Type: TypeObserve, Action: ActionObserve}
	line, err := encodeLine(env)
	if err != nil {
		return
	}
	p, err := c.register(env)
	if err != nil {
		return
	}
	defer c.unregister(env.ID)
	if _, err := c.exchange(ctx, cn, line, p); err != nil {
		c.cfg.Logger.Debug("relay: observe after reconnect failed", "err", err)
	}
}

// publish records s and offers it on States without blocking: when the
// channel is full the oldest change is dropped, since the latest is the
// one the window must show.
func (c *Client) publish(s StateChange) {
	c.mu.Lock()
	c.state = s
	c.mu.Unlock()
	for {
		select {
		case c.states <- s:
			return
		default:
		}
		select {
		case <-c.states:
		default:
		}
	}
}
