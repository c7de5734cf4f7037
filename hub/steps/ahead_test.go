package steps_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go/jetstream"
)

// TestOfferAheadIsTheRelaysOffer: a controller offers a step ahead of
// its relay and dies before it starts the relay. An agent runs the
// step from that offer; the successor's offer ahead offers nothing (the
// dispatch is open), and its relay follows that dispatch, printing the
// step's output and end: the step ran once. A read back offers nothing
// ahead; a later attempt is offered ahead as a fresh dispatch, which its
// relay follows, and the agent runs the offer the controller stored.
func TestOfferAheadIsTheRelaysOffer(t *testing.T) {
	dial, root := steps.TestHub(t)
	rc, ac := dial(), dial()
	ctl := steps.Over(dial().JS, root) // the controller's own connection
	serveAgent(t, ac, 5*time.Second)

	trace := filepath.Join(t.TempDir(), "trace")
	s := steps.Step{Key: steps.Key("run", "S1"), Lane: "l", Kind: "command", Attempt: 1,
		Argv: []string{"sh", "-c", `echo "said it"; echo ran >> "$0"; exit 3`, trace}}
	runs := func() int {
		data, _ := os.ReadFile(trace)
		return strings.Count(string(data), "ran\n")
	}
	ahead := func(s steps.Step) bool {
		t.Helper()
		actx, acancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer acancel()
		ok, err := ctl.OfferAhead(actx, s)
		if err != nil {
			t.Fatalf("offer ahead of attempt %d: %v", s.Attempt, err)
		}
		return ok
	}
	relay := func(s steps.Step) (code int, out string, readBackOf int) {
		t.Helper()
		return relayStep(t, rc, s)
	}
	closed := func() steps.Record {
		t.Helper()
		r, err := rc.Last(context.Background(), s.Key, steps.TypeDispatch)
		if err != nil || r == nil {
			t.Fatalf("the step's last dispatch record: %v, %v", r, err)
		}
		return *r
	}

	if !ahead(s) {
		t.Fatal("the first attempt was not offered ahead")
	}
	// The controller died here: its relay never started. The agent runs
	// the step all the same.
	deadline := time.Now().Add(30 * time.Second)
	for runs() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no agent ran the step offered ahead")
		}
		time.Sleep(10 * time.Millisecond) // polling the step's trace; the deadline bounds it
	}
	if ahead(s) {
		t.Error("the successor offered the step ahead again while its dispatch is open")
	}
	if code, out, d := relay(s); code != 3 || out != "said it\n" || d != 0 || runs() != 1 {
		t.Errorf("the successor's relay: exit %d, output %q, read back %d, %d runs; want 3, the step's line, 0, 1", code, out, d, runs())
	}
	if r := closed(); r.Type != steps.TypeClosed || r.Dispatch != 1 || r.Attempt != 1 {
		t.Errorf("after the successor's relay the dispatch record is %+v, want dispatch 1 of attempt 1 closed", r)
	}

	// Read back: nothing offered ahead, nothing run again.
	back := s
	back.Attempt, back.ReadBack = 2, 1
	if ahead(back) {
		t.Error("a read back was offered ahead")
	}
	if code, _, d := relay(back); code != 3 || d != 1 || runs() != 1 {
		t.Errorf("the read back: exit %d, read back %d, %d runs; want 3, 1, 1", code, d, runs())
	}

	// A later attempt: offered ahead as dispatch 2, its relay follows it.
	s.Attempt = 3
	s.SpawnAt, s.RelayAt = 7, 7 // the controller's offer, not the relay's, reaches the agent
	if !ahead(s) {
		t.Fatal("a later attempt was not offered ahead")
	}
	s.RelayAt = 8
	if code, out, d := relay(s); code != 3 || out != "said it\n" || d != 0 || runs() != 2 {
		t.Errorf("a later attempt's relay: exit %d, output %q, read back %d, %d runs; want 3, the line, 0, 2", code, out, d, runs())
	}
	if r := closed(); r.Type != steps.TypeClosed || r.Dispatch != 2 || r.Attempt != 3 {
		t.Errorf("after a later attempt the dispatch record is %+v, want dispatch 2 of attempt 3 closed", r)
	}
	if r := lastStart(t, rc, s.Key); r.Dispatch != 2 || r.RelayAt != 7 {
		t.Errorf("the later attempt's start record is %+v, want dispatch 2 from the offer made ahead (relay_at 7)", r)
	}

	// A step whose bundle the relay publishes is left to the relay.
	b := s
	b.Attempt, b.Bundle, b.Commit = 4, true, "HEAD"
	if ahead(b) {
		t.Error("a step with a bundle was offered ahead")
	}
}

// lastStart is the newest start record of key's step on the hub.
func lastStart(t *testing.T, c *steps.Conn, key string) steps.Record {
	t.Helper()
	ctx := context.Background()
	st, err := c.JS.Stream(ctx, c.Root.ResultStream())
	if err != nil {
		t.Fatal(err)
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{c.Root.ResultSubject(key)}})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.FetchNoWait(1000)
	if err != nil {
		t.Fatal(err)
	}
	var last steps.Record
	for m := range batch.Messages() {
		var r steps.Record
		if json.Unmarshal(m.Data(), &r) == nil && r.Type == steps.TypeStart {
			last = r
		}
	}
	return last
}
