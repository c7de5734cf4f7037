package steps_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/daokit/daokit/agent"
	"github.com/daokit/daokit/hub/steps"
)

// serveAgent runs agent a for lane l on ac with ackWait (a beat every
// quarter of it, at most a second apart) until the test ends. What the
// agent logs goes to the test's log, and an agent that gives up before
// the test ends fails it: a relay waiting for a step no agent serves
// would otherwise only time out.
func serveAgent(t *testing.T, ac *steps.Conn, ackWait time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	log := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	dir := t.TempDir()
	go func() {
		defer close(served)
		err := agent.Run(ctx, ac, agent.Options{Name: "a", Lanes: []string{"l"}, WorkDir: dir, AckWait: ackWait, Log: log})
		if err != nil && ctx.Err() == nil {
			t.Errorf("agent a gave up: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-served })
}

// testLog writes a log's lines to the test's.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
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
