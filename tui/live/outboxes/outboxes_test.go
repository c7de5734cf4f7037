package outboxes

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/team"
)

// hubWorkflow is a team whose outbox is on a hub.
func hubWorkflow(t *testing.T, url string) *team.Workflow {
	t.Helper()
	wf, err := team.Parse([]byte("[outbox]\nbackend = \"nats\"\nurl = \""+url+"\"\nroot = \"r\"\n[roles.a]\n"), "workflow.toml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

// fakeHub is an outbox that counts its closes.
type fakeHub struct {
	outbox.Backend
	closed *int
}

func (f fakeHub) Close() error { *f.closed++; return nil }

// A hub's outbox is opened once for every read of the window, a hub
// that refused is not asked again for hubRetry, another hub is opened
// in its place, and the window's end closes what is kept.
func TestOutboxesKeepTheHubConnection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	opens, closes := 0, 0
	refuse := errors.New("refused")
	o := New(ctx, func(_ context.Context, wf *team.Workflow) (outbox.Backend, error) {
		opens++
		if wf.Outbox.URL == "nats://down:4222" {
			return nil, refuse
		}
		return fakeHub{closed: &closes}, nil
	})
	now := time.Unix(1000, 0)
	o.now = func() time.Time { return now }
	up := hubWorkflow(t, "nats://up:4222")
	for range 3 {
		_, done, err := o.Open(ctx, up)
		if err != nil {
			t.Fatal(err)
		}
		done()
	}
	if opens != 1 || closes != 0 {
		t.Fatalf("three reads: %d opens, %d closes; want 1, 0", opens, closes)
	}
	down := hubWorkflow(t, "nats://down:4222")
	for range 2 {
		if _, _, err := o.Open(ctx, down); !errors.Is(err, refuse) {
			t.Fatalf("a refusing hub: %v", err)
		}
	}
	if opens != 2 {
		t.Fatalf("a refusing hub was asked again at once: %d opens", opens)
	}
	now = now.Add(hubRetry)
	if _, _, err := o.Open(ctx, down); !errors.Is(err, refuse) || opens != 3 {
		t.Fatalf("after hubRetry: %v, %d opens", err, opens)
	}
	if closes != 1 {
		t.Fatalf("the first hub's connection was not closed for the other: %d closes", closes)
	}
	if _, _, err := o.Open(ctx, up); err != nil || opens != 4 {
		t.Fatalf("back to the first hub: %v, %d opens", err, opens)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		o.mu.Lock()
		done := o.closed
		o.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the window's end did not close the kept outbox")
		}
		time.Sleep(time.Millisecond)
	}
	if closes != 2 {
		t.Errorf("%d closes after the window's end, want 2", closes)
	}
	if _, _, err := o.Open(context.Background(), up); !errors.Is(err, context.Canceled) {
		t.Errorf("an open after the end: %v", err)
	}
}

// Without an opener a hub's outbox is refused by name, never taken for
// a missing SQLite file.
func TestOutboxesWithoutOpener(t *testing.T) {
	o := New(context.Background(), nil)
	if _, _, err := o.Open(context.Background(), hubWorkflow(t, "nats://x:4222")); !errors.Is(err, ErrHubUnreadable) {
		t.Errorf("got %v, want ErrHubUnreadable", err)
	}
}
