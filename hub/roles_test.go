package hub_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/hubconn"
	"github.com/daokit/daokit/hub/leader"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/remote"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/relay"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// issue issues a key for role on id into dir's registry and returns the
// seed file.
func issue(t *testing.T, dir, id string, role hub.Role) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), id+"-"+string(role)+".nk")
	if _, err := hub.Issue(dir, root(t, id), role, out); err != nil {
		t.Fatalf("issue %s %s: %v", id, role, err)
	}
	return out
}

func root(t *testing.T, id string) naming.Root {
	t.Helper()
	r, err := naming.ForRoot(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// client is a connection with a key, and the permission violations the
// hub reported to it.
type client struct {
	nc         *nats.Conn
	js         jetstream.JetStream
	violations chan error
}

func dialKey(t *testing.T, h *hub.Hub, seed string) *client {
	t.Helper()
	c := &client{violations: make(chan error, 64)}
	nc, err := connect(h.ClientURL(), seed, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrPermissionViolation) {
			select {
			case c.violations <- err:
			default:
			}
		}
	}))
	if err != nil {
		t.Fatalf("connect with %s: %v", filepath.Base(seed), err)
	}
	t.Cleanup(nc.Close)
	c.nc = nc
	c.js, _ = jetstream.New(nc)
	return c
}

// refused runs op, which must fail, and waits for the hub's permissions
// violation naming subject (or a subject it begins: a consumer's name
// the client generated).
func (c *client) refused(t *testing.T, what, subject string, op func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := op(ctx); err == nil {
		t.Errorf("%s: allowed", what)
		return
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case err := <-c.violations:
			if strings.Contains(err.Error(), `"`+subject) {
				return
			}
		case <-deadline:
			t.Errorf("%s: failed, but the hub reported no permissions violation for %s", what, subject)
			return
		}
	}
}

// setUp makes id's streams as its leader and relay would, with one step
// offered on lane "gpu", as the administrator.
func setUp(t *testing.T, h *hub.Hub, id string) *steps.Conn {
	t.Helper()
	c, err := steps.DialWait(context.Background(), steps.DialOptions{URL: h.ClientURL(), Creds: h.CredentialsFile()}, root(t, id), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if err := c.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	ledgerStream(t, c.JS, c.Root)
	if err := c.Offer(ctx, steps.Step{Key: "k1", Dispatch: 1, Lane: "gpu", Kind: "sim"}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAgentKeyPullsItsRootsStepsAndNothingElse(t *testing.T) {
	dir := t.TempDir()
	seed := issue(t, dir, "alpha", hub.RoleAgent)
	h := startHub(t, hub.Options{DataDir: dir})
	adminA, adminB := setUp(t, h, "alpha"), setUp(t, h, "beta")
	a, b := adminA.Root, adminB.Root
	ctx := context.Background()

	c := dialKey(t, h, seed)
	agent := &steps.Conn{NC: c.nc, JS: c.js, Root: a}
	if err := agent.EnsureStreams(ctx); err != nil {
		t.Fatalf("agent ensures its root's streams: %v", err)
	}
	cons, err := agent.LaneConsumer(ctx, "gpu", 5*time.Second)
	if err != nil {
		t.Fatalf("agent makes its lane's consumer: %v", err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got int
	for m := range batch.Messages() {
		got++
		if err := m.InProgress(); err != nil {
			t.Errorf("in progress: %v", err)
		}
		if err := m.DoubleAck(ctx); err != nil {
			t.Errorf("agent acknowledges its step: %v", err)
		}
	}
	if got != 1 {
		t.Fatalf("agent pulled %d steps, want 1 (%v)", got, batch.Error())
	}
	if err := agent.Publish(ctx, "k1", steps.Record{Type: steps.TypeEnd, Dispatch: 1, Delivery: 1}); err != nil {
		t.Fatalf("agent publishes its result: %v", err)
	}
	if r, err := adminA.Last(ctx, "k1", steps.TypeEnd); err != nil || r == nil {
		t.Fatalf("the result is not on the hub: %v, %v", r, err)
	}

	// Who holds a step is asked and answered between agents.
	live, err := c.nc.SubscribeSync(a.LiveSubject("k1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.PublishLive("k1", steps.Record{Type: steps.TypeAsk, Dispatch: 1, Delivery: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := live.NextMsg(5 * time.Second); err != nil {
		t.Errorf("agent asks and hears who holds its step: %v", err)
	}
	_ = live.Unsubscribe()

	c.refused(t, "publish to its root's ledger", a.LedgerSubject(), func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, a.LedgerSubject(), []byte(`{"forged":true}`))
		return err
	})
	c.refused(t, "delete its root's ledger stream", "$JS.API.STREAM.DELETE."+a.LedgerStream(), func(ctx context.Context) error {
		return c.js.DeleteStream(ctx, a.LedgerStream())
	})
	c.refused(t, "take its root's lease", "$JS.API.STREAM.CREATE.KV_"+a.LeaseBucket(), func(ctx context.Context) error {
		_, err := c.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: a.LeaseBucket()})
		return err
	})
	c.refused(t, "offer a step", a.StepSubject("gpu"), func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, a.StepSubject("gpu"), []byte(`{}`))
		return err
	})
	c.refused(t, "publish to another root's ledger", b.LedgerSubject(), func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, b.LedgerSubject(), []byte(`{"forged":true}`))
		return err
	})
	c.refused(t, "publish another root's results", b.ResultSubject("k1"), func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, b.ResultSubject("k1"), []byte(`{}`))
		return err
	})
	c.refused(t, "pull another root's steps", "$JS.API.CONSUMER.CREATE."+b.StepStream()+".lane-gpu."+b.StepSubject("gpu"), func(ctx context.Context) error {
		_, err := (&steps.Conn{NC: c.nc, JS: c.js, Root: b}).LaneConsumer(ctx, "gpu", 5*time.Second)
		return err
	})
	c.refused(t, "listen to another root", b.All(), func(context.Context) error {
		sub, err := c.nc.SubscribeSync(b.All())
		if err == nil {
			_, err = sub.NextMsg(time.Second)
		}
		return err
	})

	// Nothing of the refused reached a stream.
	for _, r := range []naming.Root{a, b} {
		s, err := adminA.JS.Stream(ctx, r.LedgerStream())
		if err != nil {
			t.Fatal(err)
		}
		if n := s.CachedInfo().State.Msgs; n != 0 {
			t.Errorf("%s's ledger holds %d messages, want 0", r.ID(), n)
		}
	}
	if s, _ := adminB.JS.Stream(ctx, b.StepStream()); s.CachedInfo().State.Msgs != 1 {
		t.Errorf("beta's step was taken: %d left", s.CachedInfo().State.Msgs)
	}
}

func TestLeaderKeyLeadsItsRootOnly(t *testing.T) {
	dir := t.TempDir()
	seed := issue(t, dir, "alpha", hub.RoleLeader)
	h := startHub(t, hub.Options{DataDir: dir})
	opts := func(id string) leader.Options {
		return leader.Options{Hub: hubconn.Options{URL: h.ClientURL(), Credentials: seed}, Root: id, TTL: time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := leader.Campaign(ctx, opts("alpha"))
	if err != nil {
		t.Fatalf("a leader key campaigns for its root: %v", err)
	}
	if l.Term() == 0 {
		t.Error("elected without a term")
	}
	l.Close()

	bctx, bcancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer bcancel()
	if l, err := leader.Campaign(bctx, opts("beta")); err == nil {
		l.Close()
		t.Fatal("a leader key of alpha leads beta")
	}
	admin, err := connect(h.ClientURL(), h.CredentialsFile())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	js, _ := jetstream.New(admin)
	b := root(t, "beta")
	for _, s := range []string{b.LedgerStream(), "KV_" + b.LeaseBucket()} {
		if _, err := js.Stream(context.Background(), s); !errors.Is(err, jetstream.ErrStreamNotFound) {
			t.Errorf("stream %s: %v, want none", s, err)
		}
	}
}

// A reader (a mirror, a remote window) reads the ledger, and sends an
// instruction that the root's leader, holding only a leader key,
// answers through the hub; it writes nothing else.
func TestReaderKeySendsInstructionsAndReadsTheLedgerOnly(t *testing.T) {
	dir := t.TempDir()
	readerSeed := issue(t, dir, "alpha", hub.RoleReader)
	leaderSeed := issue(t, dir, "alpha", hub.RoleLeader)
	h := startHub(t, hub.Options{DataDir: dir})
	a := setUp(t, h, "alpha").Root
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	lc := dialKey(t, h, leaderSeed)
	lead, err := remote.Lead(ctx, lc.js, a)
	if err != nil {
		t.Fatalf("a leader key serves its root's instructions: %v", err)
	}
	served := make(chan error, 1)
	go func() {
		served <- lead.Serve(ctx, func(_ context.Context, env relay.Envelope) relay.Envelope {
			return relay.Envelope{V: relay.Version, Type: relay.TypeAck, Re: env.ID}
		})
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	c := dialKey(t, h, readerSeed)
	if _, err := c.js.Stream(ctx, a.LedgerStream()); err != nil {
		t.Fatalf("a reader reads its root's ledger: %v", err)
	}
	ans, err := remote.Send(ctx, c.js, a, relay.Envelope{V: relay.Version, ID: "send-1", Type: relay.TypeInstruction, Action: relay.ActionForward, Body: []byte(`{"text":"hi"}`)})
	if err != nil || ans.Type != relay.TypeAck || ans.Re != "send-1" {
		t.Fatalf("a reader's instruction: %+v, %v; want the leader's ack", ans, err)
	}
	c.refused(t, "publish to the ledger", a.LedgerSubject(), func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, a.LedgerSubject(), []byte(`{}`))
		return err
	})
	c.refused(t, "forge the leader's answer", "$KV."+a.AnswerBucket()+".forged", func(ctx context.Context) error {
		_, err := c.js.Publish(ctx, "$KV."+a.AnswerBucket()+".forged", []byte(`{}`))
		return err
	})
	c.refused(t, "take instructions off the leader's queue", "$JS.API.CONSUMER.CREATE."+a.InstructionStream(), func(ctx context.Context) error {
		_, err := c.js.CreateOrUpdateConsumer(ctx, a.InstructionStream(), jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy})
		return err
	})
	c.refused(t, "look at the steps", "$JS.API.STREAM.INFO."+a.StepStream(), func(ctx context.Context) error {
		_, err := c.js.Stream(ctx, a.StepStream())
		return err
	})
}

// A key issued while the hub runs is let in after a reload (SIGHUP in
// `daokit hub`), and one whose line is removed is refused after the next.
func TestHubReloadsIssuedKeys(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, hub.Options{DataDir: dir})
	seed := issue(t, dir, "alpha", hub.RoleAgent)
	if nc, err := connect(h.ClientURL(), seed); err == nil {
		nc.Close()
		t.Fatal("a key issued after the start was let in before a reload")
	}
	if err := h.ReloadUsers(); err != nil {
		t.Fatal(err)
	}
	nc, err := connect(h.ClientURL(), seed)
	if err != nil {
		t.Fatalf("after the reload: %v", err)
	}
	defer nc.Close()
	closed := make(chan struct{})
	nc.SetClosedHandler(func(*nats.Conn) { close(closed) })
	if err := os.WriteFile(filepath.Join(dir, hub.UsersFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.ReloadUsers(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Error("the revoked key's connection is still open")
	}
	if nc, err := connect(h.ClientURL(), seed); err == nil {
		nc.Close()
		t.Fatal("a revoked key was let in")
	}
	if nc, err := connect(h.ClientURL(), h.CredentialsFile()); err != nil {
		t.Fatalf("the administrator after reloads: %v", err)
	} else {
		nc.Close()
	}
	// A registry that cannot be read changes nothing, and says where.
	if err := os.WriteFile(filepath.Join(dir, hub.UsersFile), []byte("{\"public_key\":\"nope\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var he *hub.Error
	if err := h.ReloadUsers(); !errors.As(err, &he) || he.Kind != hub.KindCredentials || !strings.HasSuffix(he.Subject, ":1") {
		t.Errorf("bad registry: %v, want %s at line 1", err, hub.KindCredentials)
	}
}
