package remote

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/relay"
)

// Client sends a person's requests to a root's leader through the hub,
// with the same methods and answers as a relay.Client on the root's own
// host.
type Client struct {
	js    jetstream.JetStream
	names naming.Root
}

// NewClient returns a Client for the root names on the hub js reaches.
func NewClient(js jetstream.JetStream, names naming.Root) *Client {
	return &Client{js: js, names: names}
}

// Forward sends an instruction and returns the leader's Ack, which comes
// once the instruction is durable in the root's ledger.
func (c *Client) Forward(ctx context.Context, text string) (relay.Ack, error) {
	return c.sendAck(ctx)(relay.ForwardEnvelope(text))
}

// FollowUp sends text as a follow-up of task taskID (see
// relay.Client.FollowUp).
func (c *Client) FollowUp(ctx context.Context, taskID, runID, text string) (relay.Ack, error) {
	return c.sendAck(ctx)(relay.FollowUpEnvelope(taskID, runID, text))
}

// Control sends a control request for the leader to decide.
func (c *Client) Control(ctx context.Context, ctl relay.Control) (relay.Ack, error) {
	return c.sendAck(ctx)(relay.ControlEnvelope(ctl))
}

func (c *Client) sendAck(ctx context.Context) func(relay.Envelope, error) (relay.Ack, error) {
	return func(env relay.Envelope, err error) (relay.Ack, error) {
		if err == nil {
			env, err = relay.PrepareRequest(env)
		}
		if err != nil {
			return relay.Ack{}, err
		}
		reply, err := Send(ctx, c.js, c.names, env)
		if err != nil {
			return relay.Ack{}, err
		}
		if err := relay.AnswerError(reply); err != nil {
			return relay.Ack{}, err
		}
		return relay.DecodeAck(reply)
	}
}
