package backoff

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends: the wait between two tries. It
// reports whether the whole wait passed (false: ctx ended, stop trying).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
