package main

import (
	"context"
	"errors"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/remote"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui"
)

// hubRelay is the window's relay to a remote root's leader: what the
// person types goes through the hub (hub/remote) and is answered by the
// leader's relay server as if it came over its socket; the window reads
// the root from its mirror. The leader's live notices (worker output as
// it streams) do not travel through the hub: the window shows what the
// ledger says.
type hubRelay struct {
	conn   *hubconn.Conn
	client *remote.Client

	mu      sync.Mutex
	closed  bool
	notices chan relay.Notice
	states  chan relay.StateChange
}

var _ tui.RelayClient = (*hubRelay)(nil)

// newHubRelay connects to the hub the flags name.
func (a *app) newHubRelay(o remoteFlags) (*hubRelay, error) {
	names, err := a.remoteRoot(o)
	if err != nil {
		return nil, err
	}
	conn, err := a.dialHub(o, "window")
	if err != nil {
		return nil, err
	}
	h := &hubRelay{conn: conn, client: remote.NewClient(conn.JS, names),
		notices: make(chan relay.Notice), states: make(chan relay.StateChange, 8)}
	h.publish(relay.StateChange{State: relay.StateConnected})
	conn.NC.SetDisconnectErrHandler(func(_ *nats.Conn, err error) {
		h.publish(relay.StateChange{State: relay.StateReconnecting, Err: err})
	})
	conn.NC.SetReconnectHandler(func(*nats.Conn) { h.publish(relay.StateChange{State: relay.StateConnected}) })
	return h, nil
}

// publish hands a connection change to the window, dropping it when the
// window is behind (the next one says where things stand).
func (h *hubRelay) publish(s relay.StateChange) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	select {
	case h.states <- s:
	default:
	}
}

// Forward implements tui.RelayClient.
func (h *hubRelay) Forward(ctx context.Context, text string) (relay.Ack, error) {
	return hubAnswer(h.client.Forward(ctx, text))
}

// FollowUp implements tui.RelayClient.
func (h *hubRelay) FollowUp(ctx context.Context, taskID, runID, text string) (relay.Ack, error) {
	return hubAnswer(h.client.FollowUp(ctx, taskID, runID, text))
}

// Control implements tui.RelayClient.
func (h *hubRelay) Control(ctx context.Context, c relay.Control) (relay.Ack, error) {
	return hubAnswer(h.client.Control(ctx, c))
}

// Observe implements tui.RelayClient: there is nothing to subscribe to;
// the mirror brings the ledger.
func (h *hubRelay) Observe(context.Context) (relay.Status, error) { return relay.Status{}, nil }

// Notices implements tui.RelayClient; none come through the hub.
func (h *hubRelay) Notices() <-chan relay.Notice { return h.notices }

// States implements tui.RelayClient: the hub connection's changes.
func (h *hubRelay) States() <-chan relay.StateChange { return h.states }

// Close closes the connection and the channels.
func (h *hubRelay) Close() {
	h.conn.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.notices)
		close(h.states)
	}
}

// hubAnswer words the hub's own failures as relay errors the window
// already shows: no leader is an unavailable controller, no answer in
// time a timeout (the hub keeps the request for the leader).
func hubAnswer(a relay.Ack, err error) (relay.Ack, error) {
	switch {
	case errors.Is(err, remote.ErrNoLeader):
		return a, &relay.Error{Code: relay.CodeUnavailable, Detail: err.Error()}
	case errors.Is(err, remote.ErrUnanswered):
		return a, &relay.Error{Code: relay.CodeTimeout, Detail: err.Error()}
	}
	return a, err
}
