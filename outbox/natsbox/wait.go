package natsbox

import (
	"context"

	"github.com/daokit/daokit/outbox"
)

// fire wakes every Wait: a message arrived on the outbox's subjects.
func (s *Store) fire() {
	s.wakeMu.Lock()
	close(s.wakeCh)
	s.wakeCh = make(chan struct{})
	s.wakeMu.Unlock()
}

func (s *Store) subscribe() <-chan struct{} {
	s.wakeMu.Lock()
	defer s.wakeMu.Unlock()
	return s.wakeCh
}

// Wait returns once the head is past after, ctx ends, or the wake
// interval passes, whichever is first. A batch's messages reach the
// subscription as they are published, a moment before the hub has
// committed the batch, which WaitHead's quick looks cover.
func (s *Store) Wait(ctx context.Context, after int64) error {
	return outbox.WaitHead(ctx, after, s.wake, s.subscribe, s.Head, nil)
}
