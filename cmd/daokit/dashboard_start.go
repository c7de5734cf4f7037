package main

import (
	"context"
	"sync"

	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/tui"
	"github.com/daokit/daokit/tui/live"
)

// startingRelay is the dashboard's relay: the window's relay link, which
// like the window starts the root's controller first when none is live,
// so that a forwarded instruction is carried out. The controller runs in
// a session of its own and outlives the dashboard, as it outlives the
// window. Without leave to start one (--no-start), a root without a
// live controller is refused at once instead of at the forward's
// timeout.
type startingRelay struct {
	a     *app
	start bool
	link  *tui.RelayLink
	ctl   *processControllers
	// life is the dashboard's lifetime: the reaper of a started
	// controller stops waiting when it ends (wg lets the command wait
	// for the reapers).
	life context.Context
	wg   *sync.WaitGroup

	mu      sync.Mutex
	running bool // a controller this dashboard started has not exited
}

// Forward implements dashboard.Forwarder.
func (s *startingRelay) Forward(ctx context.Context, text string) (live.Ack, error) {
	if err := s.ensure(ctx); err != nil {
		return live.Ack{}, err
	}
	return s.link.Forward(ctx, text)
}

// ensure starts a controller unless one holds the root or one this
// dashboard started is still coming up (it takes the lock a moment
// after it starts).
func (s *startingRelay) ensure(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || lockHeld(s.ctl.root) {
		return nil
	}
	if !s.start {
		return &live.Error{Code: string(relay.CodeUnavailable)}
	}
	// A root on the Python SQLite backend, and every problem of
	// daokit.toml, in words, rather than the last line of a controller
	// that stopped at the first.
	if err := requireJSONBackend(s.a, s.ctl.root); err != nil {
		return err
	}
	if _, err := s.a.loadConfig(s.ctl.root); err != nil {
		return err
	}
	p, err := s.ctl.Start(ctx)
	if err != nil {
		return err
	}
	s.running = true
	s.wg.Go(func() {
		if _, err := p.Wait(s.life); err == nil {
			s.mu.Lock()
			s.running = false
			s.mu.Unlock()
		}
	})
	return nil
}
