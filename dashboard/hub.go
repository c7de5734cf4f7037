package dashboard

import (
	"context"
	"sync"

	"github.com/daokit/daokit/tui/live"
)

// hub follows the ledger feed and tells the page streams when the state
// changed. A stream that is busy misses nothing it needs: its signal
// channel holds one pending wake-up, and it always renders the newest
// state, so a slow browser skips intermediate states instead of queueing
// them.
type hub struct {
	feed live.LedgerFeed
	tail int

	mu    sync.Mutex
	state *State
	subs  map[chan struct{}]struct{}
	ready chan struct{} // closed once the first update is in (or following failed)
}

func newHub(feed live.LedgerFeed, tail int) *hub {
	return &hub{feed: feed, tail: max(tail, 1), state: &State{}, subs: map[chan struct{}]struct{}{}, ready: make(chan struct{})}
}

// run follows the feed until ctx ends or the feed closes.
func (h *hub) run(ctx context.Context) error {
	for {
		u, err := h.feed.Next(ctx)
		if err != nil {
			h.markReady()
			return err
		}
		h.mu.Lock()
		h.state = h.state.fold(u, h.tail)
		for ch := range h.subs {
			select {
			case ch <- struct{}{}:
			default: // a wake-up is already pending
			}
		}
		h.mu.Unlock()
		h.markReady()
	}
}

func (h *hub) markReady() {
	select {
	case <-h.ready:
	default:
		close(h.ready)
	}
}

// current waits for the first update (or ctx) and returns the newest
// state.
func (h *hub) current(ctx context.Context) (*State, error) {
	select {
	case <-h.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state, nil
}

// subscribe returns a channel that receives a wake-up after each change,
// and the function that ends the subscription.
func (h *hub) subscribe() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}
