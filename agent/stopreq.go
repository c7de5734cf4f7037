package agent

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go"
)

// stopRequests is how an agent hears that a step's relay asks it to stop
// the step: the request as it is published (a subscription), and one
// published while the agent's link was down, which no subscription
// hears, from the hub's record of it, looked up every AckWait/4 while
// the step runs. stopped closes at the first.
type stopRequests struct {
	c       *steps.Conn
	s       steps.Step
	sub     *nats.Subscription
	stopped chan struct{}
	once    sync.Once
	quit    chan struct{}
	wg      sync.WaitGroup
}

// listenStop subscribes to s's stop requests.
func (a *Agent) listenStop(s steps.Step) (*stopRequests, error) {
	r := &stopRequests{c: a.c, s: s, stopped: make(chan struct{}), quit: make(chan struct{})}
	var err error
	r.sub, err = a.c.NC.Subscribe(a.c.StopSubject(s.Key), func(m *nats.Msg) {
		var rec steps.Record
		if json.Unmarshal(m.Data, &rec) == nil && rec.Dispatch == s.Dispatch {
			r.stop()
		}
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (r *stopRequests) stop() { r.once.Do(func() { close(r.stopped) }) }

// poll looks the stop record up every interval until close.
func (r *stopRequests) poll(every time.Duration) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.quit:
				return
			case <-r.stopped:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), every)
			rec, err := r.c.Last(ctx, r.s.Key, steps.TypeStop)
			cancel()
			if err == nil && rec != nil && rec.Dispatch == r.s.Dispatch {
				r.stop()
			}
		}
	}()
}

// close ends the subscription and the look-ups.
func (r *stopRequests) close() {
	_ = r.sub.Unsubscribe()
	close(r.quit)
	r.wg.Wait()
}
