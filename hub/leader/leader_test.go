package leader_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/leader"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/ledger"
)

// admin connects to h as its administrator.
func admin(t *testing.T, h *hub.Hub) jetstream.JetStream {
	t.Helper()
	nk, err := nats.NkeyOptionFromSeed(h.CredentialsFile())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(h.ClientURL(), nk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func options(h *hub.Hub, id string) leader.Options {
	return leader.Options{Hub: mirror.Hub{URL: h.ClientURL(), Credentials: h.CredentialsFile()}, Root: id, TTL: time.Second}
}

// stream returns every message of id's ledger stream, concatenated.
func stream(t *testing.T, js jetstream.JetStream, id string) []byte {
	t.Helper()
	names, _ := naming.ForRoot(id)
	ctx := context.Background()
	s, err := js.Stream(ctx, names.LedgerStream())
	if err != nil {
		t.Fatal(err)
	}
	last, err := mirror.LastSequence(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	if err := mirror.ReadLines(ctx, s, 1, last, func(lines []byte, _ uint64) error {
		all = append(all, lines...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return all
}

func eventsFile(t *testing.T, dir string) []byte {
	t.Helper()
	data, err := os.ReadFile(ledger.Layout{Root: dir}.Events())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCampaignOneLeaderAndResignation: while one leader renews its
// lease a second campaign does not win, over twice the TTL; once the
// first resigns (Close), the second wins at once.
func TestCampaignOneLeaderAndResignation(t *testing.T) {
	h := startHub(t)
	first, err := leader.Campaign(context.Background(), options(h, "one"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if l, err := leader.Campaign(ctx, options(h, "one")); err == nil {
		l.Close()
		t.Fatal("a second campaign won while the leader renews its lease")
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second campaign: %v, want it still waiting at its deadline", err)
	}
	first.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 900*time.Millisecond)
	defer cancel2()
	second, err := leader.Campaign(ctx2, options(h, "one"))
	if err != nil {
		t.Fatalf("campaign after the leader resigned, within less than its TTL: %v", err)
	}
	second.Close()
}

// TestDeposedLeaderIsFenced: a leader whose lease another took (here:
// its key deleted by the hub's administrator, as the TTL would) and who
// has not heard yet has its next append refused by the expected last
// sequence once the successor wrote, writes nothing to its file, and
// learns it is deposed; the stream is the successor's folder.
func TestDeposedLeaderIsFenced(t *testing.T) {
	h := startHub(t)
	js := admin(t, h)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := lead(t, h, "fence", dirA)
	storeA := openStore(t, dirA, a)
	if err := storeA.AppendEvents(events(3)); err != nil {
		t.Fatal(err)
	}
	names, _ := naming.ForRoot("fence")
	kv, err := js.KeyValue(context.Background(), names.LeaseBucket())
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.Purge(context.Background(), naming.LeaseKey); err != nil {
		t.Fatal(err)
	}
	b := lead(t, h, "fence", dirB)
	storeB := openStore(t, dirB, b)
	if err := storeB.AppendEvents(events(1)); err != nil {
		t.Fatal(err)
	}
	before := eventsFile(t, dirA)
	err = storeA.AppendEvents(events(2))
	if !errors.Is(err, leader.ErrDeposed) {
		t.Fatalf("the deposed leader's append: %v, want ErrDeposed", err)
	}
	select {
	case <-a.Deposed():
	default:
		t.Error("Deposed() not closed after the refusal")
	}
	if after := eventsFile(t, dirA); !bytes.Equal(before, after) {
		t.Error("the deposed leader wrote its refused lines to its file")
	}
	if got := stream(t, js, "fence"); !bytes.Equal(got, eventsFile(t, dirB)) {
		t.Errorf("the stream is not the successor's events.jsonl:\n%s\n---\n%s", got, eventsFile(t, dirB))
	}
}

// TestReconcile: a root's first election publishes its folder's lines;
// a folder behind the stream is caught up (lines and documents); a
// folder whose lines differ is refused and left as it was.
func TestReconcile(t *testing.T) {
	h := startHub(t)
	js := admin(t, h)
	dirA := t.TempDir()
	s, err := ledger.Open(dirA, ledger.Options{CreateStateDir: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvents(events(4)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteHeartbeat(ledger.NewHeartbeatStatus(time.Now())); err != nil {
		t.Fatal(err)
	}
	s.Close()

	a, err := leader.Campaign(context.Background(), options(h, "rec"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := a.Reconcile(context.Background(), dirA)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Published != 4 || rec.Sequence != 4 {
		t.Errorf("first election: %+v, want the folder's 4 lines published", rec)
	}
	a.Close()

	dirB := t.TempDir()
	b, err := leader.Campaign(context.Background(), options(h, "rec"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err = b.Reconcile(context.Background(), dirB)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if rec.Fetched != 4 || rec.Restored < 1 {
		t.Errorf("empty folder: %+v, want 4 lines fetched and the documents restored", rec)
	}
	if !bytes.Equal(eventsFile(t, dirB), eventsFile(t, dirA)) {
		t.Error("the caught-up folder's events.jsonl differs from the first leader's")
	}
	hbA, _ := os.ReadFile(ledger.Layout{Root: dirA}.Heartbeat())
	hbB, _ := os.ReadFile(ledger.Layout{Root: dirB}.Heartbeat())
	if !bytes.Equal(hbA, hbB) {
		t.Error("the caught-up folder's heartbeat_status.json differs from the first leader's")
	}

	dirC := t.TempDir()
	c, err := ledger.Open(dirC, ledger.Options{CreateStateDir: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AppendEvents(events(2)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	before := eventsFile(t, dirC)
	l, err := leader.Campaign(context.Background(), options(h, "rec"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = l.Reconcile(context.Background(), dirC)
	var div *leader.DivergedError
	if !errors.As(err, &div) || div.Line != 1 {
		t.Fatalf("diverged folder: %v, want a *DivergedError at line 1", err)
	}
	if !bytes.Equal(before, eventsFile(t, dirC)) {
		t.Error("the diverged folder was changed")
	}
	if got := stream(t, js, "rec"); !bytes.Equal(got, eventsFile(t, dirA)) {
		t.Error("the stream was changed by the diverged folder's election")
	}
}

// TestRenewalDoesNotWaitBehindAPublication: a publication that waits for
// a lost acknowledgement holds the appends' lock for up to the request
// timeout, longer than a short lease; the lease is renewed meanwhile, so
// a second campaign does not win over twice the TTL (it did, after a hub
// SIGKILL in the cluster drill, when renewals took that lock).
func TestRenewalDoesNotWaitBehindAPublication(t *testing.T) {
	h := startHub(t)
	first, err := leader.Campaign(context.Background(), options(h, "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	release := first.HoldAppends()
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	l, err := leader.Campaign(ctx, options(h, "held"))
	release()
	if err == nil {
		l.Close()
		t.Fatal("a second campaign won while the leader's publication held its appends")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second campaign: %v, want it still waiting at its deadline", err)
	}
	select {
	case <-first.Deposed():
		t.Fatal("the leader was deposed while its publication waited")
	default:
	}
}

// TestCampaignWaitsForAHubThatIsDown: a controller started during a hub
// outage campaigns once the hub is back on its address, instead of
// failing its start.
func TestCampaignWaitsForAHubThatIsDown(t *testing.T) {
	dir := t.TempDir()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	o := options(h, "later")
	addr := strings.TrimPrefix(h.ClientURL(), "nats://")
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waiting := make(chan struct{})
	var once sync.Once
	o.Logger = slog.New(slog.NewTextHandler(onWrite(func() { once.Do(func() { close(waiting) }) }), nil))
	won := make(chan error, 1)
	go func() {
		l, err := leader.Campaign(ctx, o)
		if err == nil {
			l.Close()
		}
		won <- err
	}()
	select {
	case <-waiting:
	case err := <-won:
		t.Fatalf("campaign ended (%v) while the hub was down", err)
	}
	again, err := hub.Start(hub.Options{Listen: addr, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Shutdown(context.Background())
	if err := <-won; err != nil {
		t.Fatalf("campaign once the hub was back: %v", err)
	}
}

// onWrite is a writer that calls f on every write.
type onWrite func()

func (f onWrite) Write(p []byte) (int, error) { f(); return len(p), nil }
