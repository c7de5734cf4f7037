package heal

import (
	"testing"

	"github.com/daokit/daokit/liveness"
)

func TestDecideFenceNeedsALapsedLeaseAndNoAnswer(t *testing.T) {
	t.Parallel()
	asked := 0
	answering := func(a bool) func() bool { return func() bool { asked++; return a } }
	alive := liveness.Controller{PID: 5, Running: true, LeasePID: 5}
	lapsed := liveness.Controller{PID: 5, Running: true, Lapsed: true}
	if got := DecideFence(alive, answering(false)); got != FenceNone || asked != 0 {
		t.Errorf("a renewing holder: %v (asked %d times), want FenceNone without asking", got, asked)
	}
	if got := DecideFence(lapsed, answering(true)); got != FenceSpare {
		t.Errorf("lapsed but answering: %v, want FenceSpare", got)
	}
	if got := DecideFence(lapsed, answering(false)); got != FenceKill {
		t.Errorf("lapsed and silent: %v, want FenceKill", got)
	}
}
