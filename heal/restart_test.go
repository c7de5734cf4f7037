package heal

import (
	"testing"
	"time"
)

func TestRestartsStopAtTheLimitAndRecoverAfterTheWindow(t *testing.T) {
	t.Parallel()
	p := DefaultRestartPolicy()
	var r Restarts
	fixed := func() float64 { return 0.5 }
	now := t0
	for i := 0; i < p.MaxRestarts; i++ {
		if _, ok := r.Next(p, now, fixed); !ok {
			t.Fatalf("restart %d refused, want %d allowed", i+1, p.MaxRestarts)
		}
		now = now.Add(time.Minute)
	}
	if _, ok := r.Next(p, now, fixed); ok {
		t.Fatalf("restart %d allowed within the window", p.MaxRestarts+1)
	}
	// Ten minutes after the first restart, one slot frees up.
	if _, ok := r.Next(p, t0.Add(p.Window), fixed); !ok {
		t.Fatalf("restart refused after the window slid")
	}
}

func TestBackoffGrowsIsCappedAndJittered(t *testing.T) {
	t.Parallel()
	p := DefaultRestartPolicy()
	low, high := func() float64 { return 0 }, func() float64 { return 0.999999 }
	tests := []struct {
		n         int
		min, max_ time.Duration
	}{
		{0, 250 * time.Millisecond, 500 * time.Millisecond},
		{1, 500 * time.Millisecond, time.Second},
		{3, 2 * time.Second, 4 * time.Second},
		{20, 15 * time.Second, 30 * time.Second},
	}
	for _, tt := range tests {
		lo, hi := Backoff(p, tt.n, low), Backoff(p, tt.n, high)
		if lo != tt.min || hi > tt.max_ || hi <= lo {
			t.Errorf("attempt %d: delays %v..%v, want %v..%v", tt.n, lo, hi, tt.min, tt.max_)
		}
	}
}
