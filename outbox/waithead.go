package outbox

import (
	"context"
	"time"
)

// settleLooks are the delays of the looks after a wake: a wake can come a
// moment before the write it announces is visible to a read (SQLite's
// wal-index, a NATS batch before the hub commits it). The last two cover
// a writer descheduled between its WAL writes and its commit on a loaded
// machine: without them the commit waited for the wake interval (5 s
// for a Lead), once Leads stopped writing their cursors for every event
// and so no longer woke one another again and again. Looks happen only
// after a wake that showed no new event, which is rare.
var settleLooks = []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 12 * time.Millisecond, 48 * time.Millisecond,
	200 * time.Millisecond, 800 * time.Millisecond}

// WaitHead is the Wait every backend shares: it returns once head reports
// past after, ctx ends, or wake passes, whichever is first. subscribe
// returns a channel closed at the next write; it is called before each
// read of the head, so a write in between still wakes us. A wake is
// followed by a few quick looks before waiting again; without writes,
// nothing polls. recent, when set, reports a write seen just before: a
// Wait that finds no new event looks again as after a wake, for that
// write's notification may have come before the subscription, and its
// commit after the first look (no later notification would tell).
func WaitHead(ctx context.Context, after int64, wake time.Duration, subscribe func() <-chan struct{}, head func(context.Context) (int64, error), recent func() bool) error {
	ch := subscribe()
	if h, err := head(ctx); err != nil || h > after {
		return err
	}
	t := time.NewTimer(wake)
	defer t.Stop()
	settle := recent != nil && recent()
	for {
		if !settle {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			case <-ch:
			}
			ch = subscribe()
		}
		settle = false
		for i := 0; i < len(settleLooks); i++ {
			if d := settleLooks[i]; d > 0 {
				// A write while waiting for the next look is looked at
				// at once (the looks start over), not after the wait.
				look := time.NewTimer(d)
				select {
				case <-ctx.Done():
					look.Stop()
					return ctx.Err()
				case <-t.C:
					look.Stop()
					return nil
				case <-ch:
					look.Stop()
					ch, i = subscribe(), -1
					continue
				case <-look.C:
				}
			}
			if h, err := head(ctx); err != nil || h > after {
				return err
			}
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
