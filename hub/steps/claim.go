package steps

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// A hub SIGKILLed before it wrote down that it delivered a step hands
// the same delivery (the same delivery count) to a second agent. Which
// of the two runs it must be decided before either starts, and by the
// hub, not by what each agent happened to hear: a record published
// while an agent's link was down reaches no subscription of it. So an
// agent claims the delivery before it prepares the step: a claim record
// whose Nats-Msg-Id is the delivery's alone (no agent in it), which the
// hub stores once and answers every later copy of with the sequence of
// the first. The first claim stored is the delivery's; the hub keeps the
// ids of its dedupe window on disk and rebuilds them when it restarts,
// so the answer survives the very restart that handed the delivery out
// twice. An agent that lost the claim waits for the winner as for an
// earlier delivery (agent's awaitEarlier).

// TypeClaim: Agent claims Delivery of Dispatch before it prepares the
// step (see Claim).
const TypeClaim = "claim"

// Claim claims delivery of dispatch of key's step for agent and returns
// the agent whose claim of that delivery the hub stored first: agent
// when it is this one (a claim published again after a lost
// acknowledgement is this one's too), another agent's name when the
// delivery was handed out twice and that agent claimed it first.
func (c *Conn) Claim(ctx context.Context, key string, dispatch, delivery int, agent string) (string, error) {
	r := Record{V: Version, Type: TypeClaim, Dispatch: dispatch, Delivery: delivery, Agent: agent}
	data, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	ack, err := c.JS.Publish(ctx, c.subject(key, TypeClaim), data, jetstream.WithMsgID(recordMsgID(key, r)))
	if err != nil {
		return "", err
	}
	if !ack.Duplicate {
		return agent, nil
	}
	s, err := c.resultStream(ctx)
	if err != nil {
		return "", err
	}
	m, err := s.GetMsg(ctx, ack.Sequence)
	if err != nil {
		return "", err
	}
	var first Record
	if err := json.Unmarshal(m.Data, &first); err != nil {
		return "", err
	}
	if first.Type != TypeClaim || first.Dispatch != dispatch || first.Delivery != delivery || first.Agent == "" {
		return "", fmt.Errorf("the hub's first claim of %s d%d/%d is no claim of it: %s", key, dispatch, delivery, m.Data)
	}
	return first.Agent, nil
}
