package agent

import (
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/internal/proc"
)

// maxBeatEvery bounds the interval between a running step's beats (see
// beatEvery).
const maxBeatEvery = time.Second

// beatEvery is how often the agent sends a running step's beat: with
// its renewals (AckWait/4), for the agent talks to the hub that often
// anyway and a beat costs the hub no write; but at least once a second,
// for the relay compares the beats of a window of half the controller's
// stale_after (4 s with the drills' 8 s), which long AckWaits (30 s by
// default) would leave without a fresh beat in it.
func (a *Agent) beatEvery() time.Duration {
	return min(max(a.o.AckWait/4, 10*time.Millisecond), maxBeatEvery)
}

// beat sends delivery's beats of s while its process pid runs (until
// done closes): the CPU time the process used so far, which its relay
// reads to tell a step that computes without printing from one that is
// hung (see hub/steps' TypeBeat). One that cannot be read (the process
// just ended) or sent (the link down) is skipped: the next says the
// same, later.
func (a *Agent) beat(s steps.Step, delivery, pid int, done <-chan struct{}) {
	t := time.NewTicker(a.beatEvery())
	defer t.Stop()
	for {
		if cpu, ok := proc.CPUTime(pid); ok {
			_ = a.c.PublishLive(s.Key, steps.Record{Type: steps.TypeBeat, Dispatch: s.Dispatch, Delivery: delivery,
				Agent: a.o.Name, PID: pid, CPUMillis: cpu.Milliseconds()})
		}
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
}
