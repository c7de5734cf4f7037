// Package backoff is daokit's one capped exponential backoff: the wait
// before a reconnect (relay), a restart (heal) or an automatic start of
// a successor controller (the window). It imports nothing of daokit's,
// so every side may use it.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Capped doubles from Base up to Max: Base, 2·Base, 4·Base, … Max.
type Capped struct {
	Base time.Duration
	Max  time.Duration
}

// Delay returns the wait before retry n (0-based): Base·2ⁿ, capped at
// Max. A non-positive Base waits nothing.
func (c Capped) Delay(n int) time.Duration {
	if c.Base <= 0 {
		return 0
	}
	d := c.Base
	for i := 0; i < n && d < c.Max; i++ {
		d *= 2
	}
	return min(d, c.Max)
}

// Jittered returns Delay(n) with "equal jitter": half of it fixed, the
// other half scaled by jitter() in [0, 1), so that many clients failing
// together do not retry in lockstep, yet none retries at once. A nil
// jitter draws from math/rand/v2.
func (c Capped) Jittered(n int, jitter func() float64) time.Duration {
	if jitter == nil {
		jitter = rand.Float64
	}
	d := c.Delay(n)
	half := d / 2
	return half + time.Duration(jitter()*float64(d-half))
}
