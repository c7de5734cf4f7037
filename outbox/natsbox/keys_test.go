package natsbox_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/natsbox"
	"github.com/daokit/daokit/outbox/outboxtest"
)

// keyedRoot is newRoot with the root's leader key (`daokit hub creds
// --role leader`) instead of the hub's administrator key: the Leads of
// other hosts hold only that.
func keyedRoot(t testing.TB, h *hub.Hub) outboxtest.Opener {
	t.Helper()
	id := fmt.Sprintf("keyed-%d", roots.Add(1))
	r, err := naming.ForRoot(id)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "leader.nk")
	if _, err := hub.Issue(filepath.Dir(h.CredentialsFile()), r, hub.RoleLeader, key); err != nil {
		t.Fatal(err)
	}
	if err := h.ReloadUsers(); err != nil {
		t.Fatal(err)
	}
	if created, err := natsbox.Init(context.Background(), natsbox.Options{URL: h.ClientURL(), Credentials: key, Root: id}); err != nil || !created {
		t.Fatalf("init %s with its leader key: %v %v", id, created, err)
	}
	return func(t testing.TB, o outboxtest.Handle) outbox.Backend {
		t.Helper()
		s, err := natsbox.Open(context.Background(), natsbox.Options{URL: h.ClientURL(), Credentials: key,
			Root: id, WakeInterval: o.WakeInterval})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// The whole outbox contract holds for a Lead holding only its root's
// leader key: atomic batches, the cursor, waking on changes.
func TestNATSBackendUnderALeaderKey(t *testing.T) {
	h := startHub(t)
	outboxtest.Run(t, func(t testing.TB) outboxtest.Opener { return keyedRoot(t, h) })
}
