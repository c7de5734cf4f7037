package tui

import (
	"context"
	"errors"
	"io"
	"syscall"

	"github.com/daokit/daokit/internal/say"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui/live"
)

// This is the only file of the window that talks to the relay package.
// The window forwards (Forward, FollowUp, Control) and observes (Observe, Notices,
// States); nothing else of the client is reachable from here, and the
// client itself refuses any action but forward, observe and visualize
// (relay.Guard). TestRelayBoundary checks both.

// RelayClient is what the window uses of a relay client: a
// *relay.Client on the root's host, or the hub's way to a remote root's
// leader (cmd/daokit), which answers the same requests.
type RelayClient interface {
	Forward(ctx context.Context, text string) (relay.Ack, error)
	FollowUp(ctx context.Context, taskID, runID, text string) (relay.Ack, error)
	Control(ctx context.Context, c relay.Control) (relay.Ack, error)
	Observe(ctx context.Context) (relay.Status, error)
	Notices() <-chan relay.Notice
	States() <-chan relay.StateChange
}

var _ RelayClient = (*relay.Client)(nil)

// RelayLink adapts a relay client to the window's live.Relay.
type RelayLink struct {
	client RelayClient
}

var (
	_ live.Relay    = (*RelayLink)(nil)
	_ live.Steering = (*RelayLink)(nil)
)

// NewRelayLink wraps c. The caller keeps ownership of c and closes it
// after the window has ended.
func NewRelayLink(c RelayClient) *RelayLink { return &RelayLink{client: c} }

// Forward implements live.Relay.
func (l *RelayLink) Forward(ctx context.Context, text string) (live.Ack, error) {
	ack, err := l.client.Forward(ctx, text)
	if err != nil {
		return live.Ack{}, relayError(err)
	}
	return ackOf(ack), nil
}

// Control implements live.Relay.
func (l *RelayLink) Control(ctx context.Context, kind live.ControlKind, reason string) (live.Ack, error) {
	ack, err := l.client.Control(ctx, relay.Control{Kind: relay.ControlKind(kind), Reason: reason})
	if err != nil {
		return live.Ack{}, relayError(err)
	}
	return ackOf(ack), nil
}

// FollowUp implements live.Steering.
func (l *RelayLink) FollowUp(ctx context.Context, taskID, runID, text string) (live.Ack, error) {
	ack, err := l.client.FollowUp(ctx, taskID, runID, text)
	if err != nil {
		return live.Ack{}, relayError(err)
	}
	return ackOf(ack), nil
}

// ControlTask implements live.Steering.
func (l *RelayLink) ControlTask(ctx context.Context, kind live.ControlKind, taskID, runID, reason string) (live.Ack, error) {
	ack, err := l.client.Control(ctx, relay.Control{Kind: relay.ControlKind(kind), TaskID: taskID, RunID: runID, Reason: reason})
	if err != nil {
		return live.Ack{}, relayError(err)
	}
	return ackOf(ack), nil
}

// Observe implements live.Relay. The Status it returns also arrives as a
// notice, so it is not needed here.
func (l *RelayLink) Observe(ctx context.Context) error {
	if _, err := l.client.Observe(ctx); err != nil {
		return relayError(err)
	}
	return nil
}

// Next implements live.Relay.
func (l *RelayLink) Next(ctx context.Context) (live.RelayUpdate, error) {
	select {
	case n, ok := <-l.client.Notices():
		if !ok {
			return live.RelayUpdate{}, live.ErrClosed
		}
		return noticeOf(n), nil
	case s, ok := <-l.client.States():
		if !ok {
			return live.RelayUpdate{}, live.ErrClosed
		}
		c := connOf(s)
		return live.RelayUpdate{Conn: &c}, nil
	case <-ctx.Done():
		return live.RelayUpdate{}, ctx.Err()
	}
}

// codeLost is the window's own code for a connection the controller's end
// closed (it exited or was killed); the relay calls that internal.
const codeLost = "lost"

// relayError names a relay failure by its stable code.
func relayError(err error) error {
	code := string(relay.CodeOf(err))
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		code = codeLost
	}
	e := &live.Error{Code: code, Err: err}
	var re *relay.Error
	if errors.As(err, &re) {
		e.Detail = re.Detail
	}
	return e
}

func ackOf(a relay.Ack) live.Ack {
	return live.Ack{Route: a.Route, Duplicate: a.Duplicate, EventID: a.EventID}
}

func runOf(r relay.RunState) live.RunState {
	return live.RunState{TaskID: r.TaskID, RunID: r.RunID, StepID: r.StepID, Lane: r.Lane, State: r.State, Reason: r.Reason}
}

func controllerOf(c relay.ControllerState) live.ControllerState {
	return live.ControllerState{State: c.State, PID: c.PID, Reason: c.Reason}
}

// noticeOf converts a notice; unknown kinds become an empty update,
// which the panes ignore.
func noticeOf(n relay.Notice) live.RelayUpdate {
	var u live.RelayUpdate
	switch {
	case n.Kind == relay.NoticeRoute && n.Route != nil:
		r := *n.Route // a copy: the window keeps its own, not the decoder's
		u.Route = &r
	case n.Kind == relay.NoticeRunState && n.Run != nil:
		r := runOf(*n.Run)
		u.Run = &r
	case n.Kind == relay.NoticeWorkerOutput && n.Output != nil:
		o := n.Output
		said := say.FromRelay(*o)
		u.Output = &live.OutputLine{TaskID: o.TaskID, RunID: o.RunID, StepID: o.StepID, Lane: o.Lane, Stream: o.Stream, Line: o.Line,
			Parts: said.Parts, Reason: said.Reason, Message: said.Message, Args: said.Args}
	case n.Kind == relay.NoticeController && n.Controller != nil:
		c := controllerOf(*n.Controller)
		u.Controller = &c
	case n.Kind == relay.NoticeStatus && n.Status != nil:
		st := live.Status{Route: n.Status.Route, Controller: controllerOf(n.Status.Controller)}
		for _, r := range n.Status.Runs {
			st.Runs = append(st.Runs, runOf(r))
		}
		u.Status = &st
	case n.Kind == relay.NoticeDropped:
		u.Dropped = n.Dropped
	}
	return u
}

func connOf(s relay.StateChange) live.ConnState {
	c := live.ConnState{Attempt: s.Attempt, Delay: s.Delay}
	if s.Err != nil {
		c.Err = relayError(s.Err)
	}
	switch s.State {
	case relay.StateConnected:
		c.Phase = live.ConnConnected
	case relay.StateDisconnected:
		c.Phase = live.ConnDisconnected
	case relay.StateReconnecting:
		c.Phase = live.ConnReconnecting
	case relay.StateClosed:
		c.Phase = live.ConnClosed
	default:
		c.Phase = live.ConnConnecting
	}
	return c
}
