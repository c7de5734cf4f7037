package natsbox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/outbox/natsbox"
	"github.com/daokit/daokit/outbox/outboxtest"
)

// startHub runs an embedded hub on loopback with its data in a temp dir,
// as `daokit hub` does (file store, fsync on every write, an nkey).
func startHub(t testing.TB) *hub.Hub {
	t.Helper()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	return h
}

var roots atomic.Int64

// newRoot returns an Opener on a new root's outbox on h: one hub serves
// many roots, and each test gets its own.
func newRoot(t testing.TB, h *hub.Hub) outboxtest.Opener {
	t.Helper()
	root := fmt.Sprintf("root-%d", roots.Add(1))
	if created, err := natsbox.Init(context.Background(), natsbox.Options{URL: h.ClientURL(), Credentials: h.CredentialsFile(), Root: root}); err != nil || !created {
		t.Fatalf("init %s: %v %v", root, created, err)
	}
	return func(t testing.TB, o outboxtest.Handle) outbox.Backend {
		t.Helper()
		s, err := natsbox.Open(context.Background(), natsbox.Options{URL: h.ClientURL(), Credentials: h.CredentialsFile(),
			Root: root, WakeInterval: o.WakeInterval})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

// The hub's outbox has every behaviour of the SQLite one: each handle is
// a connection of its own, as the Leads of several hosts are.
func TestNATSBackend(t *testing.T) {
	h := startHub(t)
	outboxtest.Run(t, func(t testing.TB) outboxtest.Opener { return newRoot(t, h) })
}

// streamMsgs is how many messages the root's outbox stream holds.
func streamMsgs(t *testing.T, h *hub.Hub, root string) uint64 {
	t.Helper()
	key, err := nats.NkeyOptionFromSeed(h.CredentialsFile())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(h.ClientURL(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	names, _ := naming.ForRoot(root)
	s, err := js.Stream(context.Background(), names.OutboxStream())
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// A trigger replayed (a Lead that crashed after its commit and handles
// the event again) stores nothing on the hub: not a message.
func TestReplayedTriggerStoresNothing(t *testing.T) {
	h := startHub(t)
	ctx := context.Background()
	o := natsbox.Options{URL: h.ClientURL(), Credentials: h.CredentialsFile(), Root: "replay"}
	if _, err := natsbox.Init(ctx, o); err != nil {
		t.Fatal(err)
	}
	s, err := natsbox.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := outboxtest.MustApply(t, s, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "x"}}}).Issues[0]
	ack := outbox.Change{Actor: "lead:qa", Reader: "lead:qa", UpTo: 1, Trigger: "T-1", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "ack"}}}
	outboxtest.MustApply(t, s, ack)
	before := streamMsgs(t, h, "replay")
	// change record, trigger key, cursor: one batch of three, after the
	// opening change.
	if before != 4 {
		t.Fatalf("%d messages after two changes, want 1 + 3", before)
	}
	if r := outboxtest.MustApply(t, s, ack); !r.Stale {
		t.Fatalf("replay: %+v", r)
	}
	if n := streamMsgs(t, h, "replay"); n != before {
		t.Fatalf("a replayed trigger stored %d messages", n-before)
	}
}

// Of many Applies racing on the same issue's expected state, from hosts
// that each read the issue free, exactly one commits its claim; the
// others lose their part, and the hub holds one assignment event.
func TestRacersOneCommits(t *testing.T) {
	h := startHub(t)
	open := newRoot(t, h)
	ctx := context.Background()
	var bs []outbox.Backend
	for range 4 {
		bs = append(bs, open(t, outboxtest.Handle{}))
	}
	for round := range 5 {
		id := outboxtest.MustApply(t, bs[0], outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "free"}}}).Issues[0]
		for _, b := range bs {
			if is, err := b.Issue(ctx, id); err != nil || is.Assignee != "" {
				t.Fatalf("%+v %v", is, err)
			}
		}
		res := make([]outbox.Result, len(bs))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, b := range bs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				who := fmt.Sprint("lead:", i)
				res[i] = outboxtest.MustApply(t, b, outbox.Change{Actor: who, Reader: who, UpTo: int64(round + 1), Trigger: fmt.Sprint("claim-", id),
					Ops: []outbox.Op{{Kind: outbox.OpAssign, Issue: id, Assignee: who, IfAssignee: []string{""}},
						{Kind: outbox.OpComment, Issue: id, Body: "mine"}}})
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for _, r := range res {
			if !r.Lost {
				won++
			}
		}
		cs, _ := bs[1].Comments(ctx, id)
		if won != 1 || len(cs) != 1 {
			t.Fatalf("round %d: %d won, %d comments: %+v", round, won, len(cs), res)
		}
	}
}

// Only Init makes an outbox on the hub: every open of a root without one
// is refused as missing, a stream that is not an outbox as corrupt, and
// Init keeps the outbox that is there with its issues.
func TestOpenRefusesMissingAndForeignStreams(t *testing.T) {
	h := startHub(t)
	ctx := context.Background()
	o := natsbox.Options{URL: h.ClientURL(), Credentials: h.CredentialsFile(), Root: "fresh"}
	for _, ro := range []bool{false, true} {
		o.ReadOnly = ro
		var oe *outbox.OpenError
		if _, err := natsbox.Open(ctx, o); !errors.Is(err, outbox.ErrMissing) || !errors.As(err, &oe) || oe.Code() != "OUTBOX_MISSING" ||
			!strings.Contains(err.Error(), "DAOKIT_fresh_OUTBOX") {
			t.Fatalf("read-only %v: %v", ro, err)
		}
	}
	if created, err := natsbox.Init(ctx, o); err != nil || !created {
		t.Fatalf("init: %v %v", created, err)
	}
	o.ReadOnly = false
	s, err := natsbox.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	outboxtest.MustApply(t, s, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "keep me"}}})
	s.Close()
	if created, err := natsbox.Init(ctx, o); err != nil || created {
		t.Fatalf("second init: %v %v", created, err)
	}
	s, err = natsbox.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if is, err := s.Issue(ctx, 1); err != nil || is.Title != "keep me" {
		t.Fatalf("%+v %v", is, err)
	}
	s.Close()

	// Another program's stream under the outbox's name.
	key, _ := nats.NkeyOptionFromSeed(h.CredentialsFile())
	nc, err := nats.Connect(h.ClientURL(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	names, _ := naming.ForRoot("foreign")
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: names.OutboxStream(), Subjects: []string{names.OutboxSubjects()}}); err != nil {
		t.Fatal(err)
	}
	o.Root = "foreign"
	if _, err := natsbox.Open(ctx, o); !errors.Is(err, outbox.ErrCorrupt) {
		t.Fatalf("foreign stream: %v", err)
	}
	if _, err := natsbox.Init(ctx, o); !errors.Is(err, outbox.ErrCorrupt) {
		t.Fatalf("init over a foreign stream: %v", err)
	}
}

// A change larger than one message of the hub (a Lead answering a
// backlog, Worker evidence included) is stored in parts of one atomic
// batch, and read back whole, by this handle and another; one comment
// larger than a message is refused as invalid, storing nothing.
func TestChangeLargerThanAMessage(t *testing.T) {
	h := startHub(t)
	open := newRoot(t, h)
	s, other := open(t, outboxtest.Handle{}), open(t, outboxtest.Handle{})
	ctx := context.Background()
	id := outboxtest.MustApply(t, s, outbox.Change{Actor: "ann", Ops: []outbox.Op{{Kind: outbox.OpOpen, Title: "big"}}}).Issues[0]
	evidence := strings.Repeat("Tests: go test ./... ok\n", 400) // about 9 kB
	var parts []outbox.Part
	for k := range 300 {
		parts = append(parts, outbox.Part{Trigger: fmt.Sprint("T-", k), Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: evidence}}})
	}
	for _, withTrigger := range []bool{false, true} {
		c := outbox.Change{Actor: "lead:qa", Reader: "lead:qa"}
		if withTrigger {
			c.Parts, c.UpTo = parts, 100
		} else {
			for _, p := range parts {
				c.Ops = append(c.Ops, p.Ops...)
			}
			c.UpTo = 50
		}
		r := outboxtest.MustApply(t, s, c)
		if len(r.Comments) != 300 {
			t.Fatalf("trigger %v: %d comments", withTrigger, len(r.Comments))
		}
	}
	for _, b := range []outbox.Backend{s, other} {
		cs, err := b.Comments(ctx, id)
		if err != nil || len(cs) != 600 || cs[599].Body != evidence {
			t.Fatalf("%d comments, %v", len(cs), err)
		}
		if cur, _ := b.Cursor(ctx, "lead:qa"); cur != 100 {
			t.Fatalf("cursor %d", cur)
		}
		if n, _ := b.Triggers(ctx, "lead:qa"); n != 300 {
			t.Fatalf("%d triggers", n)
		}
	}
	head, _ := s.Head(ctx)
	huge := strings.Repeat("x", 2<<20)
	if _, err := s.Apply(ctx, outbox.Change{Actor: "lead:qa", Ops: []outbox.Op{{Kind: outbox.OpComment, Issue: id, Body: "fits"}, {Kind: outbox.OpComment, Issue: id, Body: huge}}}); !errors.Is(err, outbox.ErrInvalid) {
		t.Fatalf("a 2 MB comment: %v", err)
	}
	if h, _ := other.Head(ctx); h != head {
		t.Fatalf("a refused change stored events: head %d, was %d", h, head)
	}
}
