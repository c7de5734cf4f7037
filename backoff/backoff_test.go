package backoff

import (
	"testing"
	"time"
)

func TestDelayDoublesAndIsCapped(t *testing.T) {
	t.Parallel()
	c := Capped{Base: time.Second, Max: 30 * time.Second}
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second} {
		if got := c.Delay(n); got != want {
			t.Errorf("Delay(%d) = %v, want %v", n, got, want)
		}
	}
	if got := c.Delay(1 << 20); got != 30*time.Second {
		t.Errorf("Delay(huge) = %v, want the cap", got)
	}
	if got := (Capped{Max: time.Second}).Delay(3); got != 0 {
		t.Errorf("zero base waits %v", got)
	}
}

func TestJitteredKeepsHalfFixed(t *testing.T) {
	t.Parallel()
	c := Capped{Base: 100 * time.Millisecond, Max: time.Second}
	for n := range 6 {
		d := c.Delay(n)
		lo, hi := c.Jittered(n, func() float64 { return 0 }), c.Jittered(n, func() float64 { return 0.999999 })
		if lo != d/2 || hi <= lo || hi > d {
			t.Errorf("n=%d: jitter range [%v, %v], want [%v, %v]", n, lo, hi, d/2, d)
		}
		if r := c.Jittered(n, nil); r < d/2 || r > d {
			t.Errorf("n=%d: random jitter %v outside [%v, %v]", n, r, d/2, d)
		}
	}
}
