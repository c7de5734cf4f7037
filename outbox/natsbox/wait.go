package natsbox

import (
	"context"
	"time"
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

// settleLooks are the looks after a wake: a batch's messages reach the
// subscription as they are published, a moment before the hub has
// committed the batch.
var settleLooks = []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 12 * time.Millisecond, 48 * time.Millisecond}

// Wait returns once the head is past after, ctx ends, or the wake
// interval passes, whichever is first.
func (s *Store) Wait(ctx context.Context, after int64) error {
	ch := s.subscribe()
	if head, err := s.Head(ctx); err != nil || head > after {
		return err
	}
	t := time.NewTimer(s.wake)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		case <-ch:
		}
		ch = s.subscribe()
		for _, d := range settleLooks {
			if d > 0 {
				look := time.NewTimer(d)
				select {
				case <-ctx.Done():
					look.Stop()
					return ctx.Err()
				case <-look.C:
				}
			}
			if head, err := s.Head(ctx); err != nil || head > after {
				return err
			}
		}
	}
}
