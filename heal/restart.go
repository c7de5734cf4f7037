package heal

import (
	"time"

	"github.com/daokit/daokit/backoff"
	"github.com/daokit/daokit/vocab"
)

// RestartPolicy bounds automatic worker restarts: exponential backoff with
// jitter between attempts, and at most MaxRestarts within Window, after
// which the step is given up (RESTART_LIMIT_REACHED) and the run waits for
// a person instead of looping.
type RestartPolicy struct {
	MaxRestarts int           // restarts allowed within Window (e.g. 5)
	Window      time.Duration // sliding window (e.g. 10 minutes)
	BaseDelay   time.Duration // first backoff (e.g. 500 ms)
	MaxDelay    time.Duration // backoff cap (e.g. 30 s)
}

// DefaultRestartPolicy allows 5 restarts in 10 minutes, backing off from
// 500 ms to at most 30 s.
func DefaultRestartPolicy() RestartPolicy {
	return RestartPolicy{MaxRestarts: 5, Window: 10 * time.Minute, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}
}

// ReasonRestartLimit is the stable reason code of a step given up after
// too many restarts.
const ReasonRestartLimit = string(vocab.ReasonRestartLimit)

// Restarts tracks the restarts of one step. The zero value is ready.
type Restarts struct {
	times []time.Time
}

// Next records a restart attempt at now and returns the delay to wait
// before it, or ok=false when the window's budget is spent.
// jitter is a source in [0,1); pass nil for math/rand.
func (r *Restarts) Next(p RestartPolicy, now time.Time, jitter func() float64) (delay time.Duration, ok bool) {
	kept := r.times[:0]
	for _, t := range r.times {
		if now.Sub(t) < p.Window {
			kept = append(kept, t)
		}
	}
	r.times = kept
	if len(r.times) >= p.MaxRestarts {
		return 0, false
	}
	r.times = append(r.times, now)
	return Backoff(p, len(r.times)-1, jitter), true
}

// Count returns how many restarts are inside the current window.
func (r *Restarts) Count() int { return len(r.times) }

// Backoff returns the delay before attempt n (0-based): BaseDelay·2ⁿ capped
// at MaxDelay, with "equal jitter" (half fixed, half random) so that many
// failing lanes do not retry in lockstep yet never retry instantly. It is
// daokit's one backoff (package backoff) with the policy's bounds.
func Backoff(p RestartPolicy, n int, jitter func() float64) time.Duration {
	return backoff.Capped{Base: p.BaseDelay, Max: p.MaxDelay}.Jittered(n, jitter)
}
