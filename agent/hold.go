package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// holding is what an agent running a delivery of a step keeps up beside
// its renewals (see hub/steps' live.go): it answers the asks of an agent
// handed a later delivery of the same dispatch while its renewals stand,
// and it closes superseded when a later delivery starts all the same
// (its answers lost), or the same delivery starts on an agent whose name
// sorts before this one's: the step is then that agent's, and this one
// stops it and sends nothing more, so that its result is never taken for
// the step's. (Which of two agents handed the same delivery runs it is
// decided before either prepares it, by the hub's first claim: see
// hub/steps' claim.go; the names decide only when the claim's loser
// started all the same, its winner silent for a whole AckWait.)
type holding struct {
	a          *Agent
	s          steps.Step
	delivery   int
	live       *nats.Subscription
	starts     *nats.Subscription
	superseded chan struct{}
	once       sync.Once
}

// watchStarts starts watching for the starts that supersede delivery of
// s. It is called before the agent's first look-up of the step: the hub
// serves a connection's requests in order, so once that look-up is
// answered the hub has the subscription, and no start it stores after
// is missed (a start published before is what the look-up finds).
func (a *Agent) watchStarts(s steps.Step, delivery int) (*holding, error) {
	h := &holding{a: a, s: s, delivery: delivery, superseded: make(chan struct{})}
	var err error
	h.starts, err = a.c.NC.Subscribe(a.c.RecordSubject(s.Key), func(m *nats.Msg) {
		var r steps.Record
		if json.Unmarshal(m.Data, &r) != nil || r.Type != steps.TypeStart || r.Dispatch != s.Dispatch {
			return
		}
		// A later delivery; or the same one handed to another agent too
		// (a hub SIGKILLed before it wrote down that it delivered it, so
		// the count did not move): the agent whose name sorts first
		// keeps it.
		if r.Delivery > delivery || (r.Delivery == delivery && r.Agent != "" && r.Agent < a.o.Name) {
			h.once.Do(func() { close(h.superseded) })
		}
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// hold starts answering for the delivery while lost stays open: once
// the step is this agent's to run (its claim won, no earlier delivery's
// agent holds it), never before, or two agents waiting for each other
// would each answer the other's ask.
func (h *holding) hold(lost <-chan struct{}) error {
	a, s, delivery := h.a, h.s, h.delivery
	var err error
	h.live, err = a.c.NC.Subscribe(a.c.LiveSubject(s.Key), func(m *nats.Msg) {
		var r steps.Record
		// A later delivery asks; so does an agent handed this same
		// delivery after this one claimed it (see look and claim).
		if json.Unmarshal(m.Data, &r) != nil || r.Type != steps.TypeAsk || r.Dispatch != s.Dispatch ||
			r.Delivery < delivery || (r.Delivery == delivery && r.Agent == a.o.Name) {
			return
		}
		select {
		case <-lost:
			return // no longer ours to answer for
		default:
		}
		_ = a.c.PublishLive(s.Key, steps.Record{Type: steps.TypeHeld, Dispatch: s.Dispatch, Delivery: delivery, Agent: a.o.Name})
	})
	return err
}

// release stops watching and answering.
func (h *holding) release() {
	if h.live != nil {
		_ = h.live.Unsubscribe()
	}
	_ = h.starts.Unsubscribe()
}

// awaitEarlier holds delivery (a redelivery) of s back while the agent
// of an earlier delivery of the same dispatch says it still holds the
// step (see hub/steps' live.go), renewing it meanwhile (rn), and reports
// whether the step may run here: once nobody answered for a whole
// AckWait. It reports false, and leaves the delivery handled, when the
// step settled meanwhile (the earlier agent ended it: settled says so
// with a skip), this agent lost the step (it is redelivered), or ctx
// ended.
func (a *Agent) awaitEarlier(ctx context.Context, s steps.Step, delivery int, msg jetstream.Msg, lost <-chan struct{}, log *slog.Logger) bool {
	held := make(chan string, 1)
	sub, err := a.c.NC.Subscribe(a.c.LiveSubject(s.Key), func(m *nats.Msg) {
		var r steps.Record
		if json.Unmarshal(m.Data, &r) == nil && r.Type == steps.TypeHeld && r.Dispatch == s.Dispatch &&
			(r.Delivery < delivery || (r.Delivery == delivery && r.Agent != a.o.Name)) {
			select {
			case held <- r.Agent:
			default:
			}
		}
	})
	if err != nil {
		log.Warn("ask who holds the step", "err", err)
		return false // redelivered after AckWait
	}
	defer func() { _ = sub.Unsubscribe() }()
	ask := func() {
		_ = a.c.PublishLive(s.Key, steps.Record{Type: steps.TypeAsk, Dispatch: s.Dispatch, Delivery: delivery, Agent: a.o.Name})
	}
	tick := time.NewTicker(max(a.o.AckWait/4, 10*time.Millisecond))
	defer tick.Stop()
	quiet := time.NewTimer(a.o.AckWait)
	defer quiet.Stop()
	ask()
	var holder string
	for {
		select {
		case <-ctx.Done():
			return false
		case <-lost:
			return false
		case <-quiet.C:
			if a.settled(ctx, s, delivery, msg, log) {
				return false // it ended there before it could answer
			}
			if holder != "" {
				log.Info("the agent of an earlier delivery went silent: the step runs here", "holder", holder)
			}
			return true
		case name := <-held:
			if holder == "" {
				log.Info("an earlier delivery's agent still runs the step: waiting for it", "holder", name)
			}
			holder = name
			quiet.Reset(a.o.AckWait)
		case <-tick.C:
			if a.settled(ctx, s, delivery, msg, log) {
				return false // it ended there
			}
			ask()
		}
	}
}
