// Package relaytest helps tests speak to a controller as a window does.
package relaytest

import (
	"context"
	"testing"
	"time"

	"github.com/daokit/daokit/relay"
)

// SendInstruction forwards text under message id id, as a window that
// resends after a reconnect does, and returns the controller's
// acknowledgement; anything else ends the test. patience bounds the wait
// (a drill's controller may be restarting).
func SendInstruction(t testing.TB, c *relay.Client, id, text string, patience time.Duration) relay.Ack {
	t.Helper()
	env := relay.Envelope{ID: id, Type: relay.TypeInstruction, Action: relay.ActionForward}
	if err := env.SetBody(relay.Instruction{Text: text}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	reply, err := c.Send(ctx, env)
	if err != nil {
		t.Fatalf("send %s: %v", id, err)
	}
	var ack relay.Ack
	if err := reply.DecodeBody(&ack); err != nil {
		t.Fatal(err)
	}
	return ack
}
