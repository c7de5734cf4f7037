package agent

import (
	"sync"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go/jetstream"
)

// renewer keeps a step the agent runs from being redelivered: it tells
// the hub the step is in progress every AckWait/4 and confirms the hub
// got it (a flush is a round trip on the same connection, after the
// renewal). A partitioned client's renewals fail silently and its late
// acknowledgement still returns nil, so only a confirmed renewal counts,
// and lost closes once none was confirmed for 3/4 of AckWait: the step
// is killed before the hub hands it to another agent.
type renewer struct {
	c       *steps.Conn
	msg     jetstream.Msg
	ackWait time.Duration
	lost    chan struct{}
	quit    chan struct{}
	wg      sync.WaitGroup
}

func newRenewer(c *steps.Conn, msg jetstream.Msg, ackWait time.Duration) *renewer {
	return &renewer{c: c, msg: msg, ackWait: ackWait, lost: make(chan struct{}), quit: make(chan struct{})}
}

// start renews until stop, or until the renewals are lost (lost
// closes).
func (r *renewer) start() {
	every := max(r.ackWait/4, 10*time.Millisecond)
	ok := make(chan struct{}, 1)
	r.wg.Add(2)
	go r.renew(every, ok)
	go r.watch(ok)
}

// renew tells the hub the step is in progress every interval, and
// reports each renewal the hub confirmed on ok.
func (r *renewer) renew(every time.Duration, ok chan<- struct{}) {
	defer r.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
		}
		if r.msg.InProgress() == nil && r.c.NC.FlushTimeout(every) == nil {
			select {
			case ok <- struct{}{}:
			default:
			}
		}
	}
}

// watch closes lost once no renewal was confirmed for 3/4 of AckWait.
func (r *renewer) watch(ok <-chan struct{}) {
	defer r.wg.Done()
	margin := r.ackWait * 3 / 4
	deadline := time.NewTimer(margin)
	defer deadline.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-ok:
			deadline.Reset(margin)
		case <-deadline.C:
			close(r.lost)
			return
		}
	}
}

// stop ends the renewals and waits for them.
func (r *renewer) stop() {
	close(r.quit)
	r.wg.Wait()
}
