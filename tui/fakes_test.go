package tui

import (
	"context"
	"sync"
	"time"

	"github.com/daokit/daokit/tui/live"
)

// fakeFeed is an in-memory ledger feed: tests push updates, the window
// receives them one Next at a time.
type fakeFeed struct {
	ch     chan live.LedgerUpdate
	closed chan struct{}
	once   sync.Once
}

func newFakeFeed() *fakeFeed {
	return &fakeFeed{ch: make(chan live.LedgerUpdate, 64), closed: make(chan struct{})}
}

func (f *fakeFeed) Next(ctx context.Context) (live.LedgerUpdate, error) {
	select {
	case u := <-f.ch:
		return u, nil
	case <-ctx.Done():
		return live.LedgerUpdate{}, ctx.Err()
	case <-f.closed:
		return live.LedgerUpdate{}, live.ErrClosed
	}
}

func (f *fakeFeed) push(u live.LedgerUpdate) { f.ch <- u }

func (f *fakeFeed) Close() { f.once.Do(func() { close(f.closed) }) }

// fakeRelay records every call the window makes to the controller and
// answers with canned acks; notices are pushed by the test.
type fakeRelay struct {
	mu       sync.Mutex
	calls    []string // "forward:<text>", "control:<kind>", "observe"
	notices  chan live.RelayUpdate
	closed   chan struct{}
	once     sync.Once
	forwardE error
	controlE error         // the controller's refusal of every control request
	called   chan struct{} // signalled after each call
}

func newFakeRelay() *fakeRelay {
	return &fakeRelay{notices: make(chan live.RelayUpdate, 64), closed: make(chan struct{}), called: make(chan struct{}, 1)}
}

var _ live.Relay = (*fakeRelay)(nil)

func (r *fakeRelay) record(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
	select {
	case r.called <- struct{}{}:
	default:
	}
}

// wait returns after the next call, or after d at most.
func (r *fakeRelay) wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.called:
	case <-t.C:
	}
}

func (r *fakeRelay) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func (r *fakeRelay) Forward(_ context.Context, text string) (live.Ack, error) {
	r.record("forward:" + text)
	if r.forwardE != nil {
		return live.Ack{}, r.forwardE
	}
	return live.Ack{Route: live.Route{TaskID: "DK-1", RunID: "DK-1_R", ActiveLane: "worker", ActiveStep: "S1", NextAction: "dispatch"}}, nil
}

func (r *fakeRelay) Control(_ context.Context, kind live.ControlKind, reason string) (live.Ack, error) {
	if reason != "" {
		r.record("control:" + string(kind) + ":" + reason)
		return live.Ack{}, nil
	}
	r.record("control:" + string(kind))
	return live.Ack{}, r.controlE
}

// FollowUp implements live.Steering.
func (r *fakeRelay) FollowUp(_ context.Context, taskID, runID, text string) (live.Ack, error) {
	r.record("followup:" + taskID + ":" + text)
	return live.Ack{Route: live.Route{TaskID: taskID, RunID: taskID + "_R", ActiveStep: "I2-coder"}}, nil
}

// ControlTask implements live.Steering.
func (r *fakeRelay) ControlTask(_ context.Context, kind live.ControlKind, taskID, runID, reason string) (live.Ack, error) {
	r.record("control:" + string(kind) + "@" + taskID)
	return live.Ack{Route: live.Route{TaskID: taskID}}, nil
}

func (r *fakeRelay) Observe(context.Context) error {
	r.record("observe")
	return nil
}

func (r *fakeRelay) Next(ctx context.Context) (live.RelayUpdate, error) {
	select {
	case u := <-r.notices:
		return u, nil
	case <-ctx.Done():
		return live.RelayUpdate{}, ctx.Err()
	case <-r.closed:
		return live.RelayUpdate{}, live.ErrClosed
	}
}

func (r *fakeRelay) Close() { r.once.Do(func() { close(r.closed) }) }

// fakeControllers answers probes and starts with canned results.
type fakeControllers struct {
	mu      sync.Mutex
	probe   live.Probe
	startE  error
	started int
	exit    chan live.Exit
}

func (c *fakeControllers) Probe(context.Context) (live.Probe, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.probe, nil
}

func (c *fakeControllers) Start(context.Context) (live.Process, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.startE != nil {
		return nil, c.startE
	}
	c.started++
	return fakeProc{pid: 4000 + c.started, exit: c.exit}, nil
}

type fakeProc struct {
	pid  int
	exit chan live.Exit
}

func (p fakeProc) PID() int { return p.pid }

func (p fakeProc) Wait(ctx context.Context) (live.Exit, error) {
	select {
	case e := <-p.exit:
		return e, nil
	case <-ctx.Done():
		return live.Exit{}, ctx.Err()
	}
}

// fixedNow is the clock of every test: goldens must not depend on the
// machine's time or zone.
var fixedNow = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
