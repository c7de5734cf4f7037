package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go/jetstream"
)

// claimPause is the pause between claims the hub did not answer.
const claimPause = 50 * time.Millisecond

// admit decides whether delivery of s runs here, before anything is
// prepared for it: not when it is settled (ended, given up, followed by
// a newer dispatch: look handles it), not while the agent of an earlier
// delivery, or of this same delivery handed out twice and claimed first
// (see hub/steps' claim.go), says it holds the step; then it starts
// answering for the step itself (h.hold). false: the delivery is
// handled, or left to be redelivered after AckWait.
func (a *Agent) admit(ctx context.Context, s steps.Step, delivery int, msg jetstream.Msg, h *holding, rn *renewer, log *slog.Logger) bool {
	// The claim beside the look-ups: one round trip to the hub before
	// the step starts, not two.
	type claimed struct {
		holder string
		err    error
	}
	claim := make(chan claimed, 1)
	go func() {
		holder, err := a.claim(ctx, s, delivery, rn.lost)
		claim <- claimed{holder, err}
	}()
	done, elsewhere := a.look(ctx, s, delivery, msg, log)
	cl := <-claim
	if done {
		return false
	}
	if cl.err != nil {
		log.Warn("claim the step", "err", cl.err)
		return false // redelivered after AckWait
	}
	if cl.holder != a.o.Name {
		log.Info("the same delivery was handed to another agent first: waiting for it", "holder", cl.holder)
		elsewhere = true
	}
	if (delivery > 1 || elsewhere) && !a.awaitEarlier(ctx, s, delivery, msg, rn.lost, log) {
		return false
	}
	if err := h.hold(rn.lost); err != nil {
		log.Warn("answer for the step", "err", err)
		return false // redelivered after AckWait
	}
	return true
}

// claim claims delivery of s (see hub/steps' claim.go) and returns the
// agent whose claim the hub stored first, asking again through a hub
// restart until it answers, lost closes or ctx ends.
func (a *Agent) claim(ctx context.Context, s steps.Step, delivery int, lost <-chan struct{}) (string, error) {
	try := max(a.o.AckWait/4, 200*time.Millisecond)
	for {
		cctx, cancel := context.WithTimeout(ctx, try)
		holder, err := a.c.Claim(cctx, s.Key, s.Dispatch, delivery, a.o.Name)
		cancel()
		if err == nil {
			return holder, nil
		}
		select {
		case <-lost:
			return "", err
		case <-ctx.Done():
			return "", err
		default:
		}
		wait(ctx, claimPause) // the hub is restarting: a pause, not a wait for it
	}
}
