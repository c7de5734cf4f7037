package steps

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
)

// TestClaimIsTheFirstAgentsThroughAHubRestart: the hub decides which of
// two agents handed the same delivery runs it (the first claim stored),
// the winner asking again hears that it won, another delivery is claimed
// afresh, and a hub restarted in between (the restart that hands a
// delivery out twice) still answers with the first claim.
func TestClaimIsTheFirstAgentsThroughAHubRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hub")
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := naming.ForRoot("t")
	c, err := DialWait(context.Background(), DialOptions{URL: h.ClientURL(), Creds: h.CredentialsFile(), Name: "test"}, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	key := Key("run", "S1")
	claim := func(dispatch, delivery int, agent, want string) {
		t.Helper()
		for {
			got, err := c.Claim(ctx, key, dispatch, delivery, agent)
			if err != nil && ctx.Err() == nil {
				continue // the hub is restarting: asked again, as agents do
			}
			if err != nil || got != want {
				t.Fatalf("%s claims d%d/%d: the hub says %q (%v), want %q", agent, dispatch, delivery, got, err, want)
			}
			return
		}
	}
	claim(1, 1, "b", "b")
	claim(1, 1, "a", "b")
	claim(1, 1, "b", "b")
	claim(1, 2, "a", "a")
	claim(2, 1, "a", "a")

	url := h.ClientURL()
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, err = hub.Start(hub.Options{Listen: url[len("nats://"):], DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background())
	claim(1, 1, "a", "b")
	claim(1, 2, "b", "a")
	claim(1, 3, "b", "b")
}
