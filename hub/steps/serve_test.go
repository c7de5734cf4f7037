package steps_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/daokit/daokit/agent"
	"github.com/daokit/daokit/hub/steps"
)

// serveAgent runs agent a for lane l on ac with ackWait (a beat every
// quarter of it, at most a second apart) until the test ends.
func serveAgent(t *testing.T, ac *steps.Conn, ackWait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = agent.Run(ctx, ac, agent.Options{Name: "a", Lanes: []string{"l"}, WorkDir: t.TempDir(), AckWait: ackWait})
	}()
	t.Cleanup(func() { cancel(); <-served })
}

// relayStep runs s's relay to its end (within 30 s) and returns its exit
// code, what it printed and the dispatch it said it read back (0: none).
func relayStep(t *testing.T, c *steps.Conn, s steps.Step) (code int, out string, readBackOf int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := steps.Relay(ctx, c, s, steps.RelayIO{Stdout: &stdout, Stderr: &stderr, Stop: make(chan struct{}),
		ReadBack: func(d int) { readBackOf = d }})
	if err != nil {
		t.Fatalf("relay of attempt %d (read back %d): %v", s.Attempt, s.ReadBack, err)
	}
	return code, stdout.String(), readBackOf
}
