package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go"
)

// TestAgentYieldsASameDeliveryStartedElsewhere: a hub SIGKILLed before
// it wrote down that it delivered a step hands the same delivery to a
// second agent. Once the two see each other's start, the agent whose
// name sorts last stops its step and sends nothing more (no end of its
// own for the step), so the step runs to its end once.
func TestAgentYieldsASameDeliveryStartedElsewhere(t *testing.T) {
	c, o := startHub(t)
	pids := t.TempDir()
	started := make(chan int, 2)
	runAgentAs(t, o, "b", 5*time.Second, func(_ steps.Step, d int) { started <- d })
	ctx := context.Background()
	s := steps.Step{Key: steps.Key("run", "S1"), Dispatch: 1, Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", "echo $$ > " + filepath.Join(pids, "pid") + "; exec sleep 60"}}
	if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeDispatch, Dispatch: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Offer(ctx, s); err != nil {
		t.Fatal(err)
	}
	if d := <-started; d != 1 {
		t.Fatalf("delivery %d, want 1", d)
	}
	pid := waitPID(t, filepath.Join(pids, "pid"))
	// Agent a's start of the same delivery, as it would publish it.
	if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeStart, Dispatch: 1, Delivery: 1, Agent: "a", PID: 1}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent b's step (pid %d) still runs 20s after agent a started the same delivery", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling /proc; the deadline bounds it
	}
	if end, err := c.Last(ctx, s.Key, steps.TypeEnd); err != nil || end != nil {
		t.Errorf("agent b sent an end for the step it yielded: %+v, %v", end, err)
	}
}

// TestAgentWaitsForASameDeliveryStartedBefore: the same delivery handed
// to a second agent after the first had started it (the first's start is
// in the hub before the second listens for starts) is held back while the
// first answers that it holds the step, and never runs once the first
// ends it: the step runs once.
func TestAgentWaitsForASameDeliveryStartedBefore(t *testing.T) {
	testAgentWaitsForTheFirstOfASameDelivery(t, func(ctx context.Context, c *steps.Conn, key string) error {
		return c.Publish(ctx, key, steps.Record{Type: steps.TypeStart, Dispatch: 1, Delivery: 1, Agent: "a", PID: 1})
	})
}

// TestAgentWaitsForASameDeliveryClaimedBefore: the same delivery handed
// to a second agent while the first prepares it (claimed, not yet
// started: its start record may come after the second looked, or reach
// none of the second's subscriptions across a hub restart) is held back
// the same way: the hub's first claim decides which agent runs it.
func TestAgentWaitsForASameDeliveryClaimedBefore(t *testing.T) {
	testAgentWaitsForTheFirstOfASameDelivery(t, func(ctx context.Context, c *steps.Conn, key string) error {
		holder, err := c.Claim(ctx, key, 1, 1, "a")
		if err == nil && holder != "a" {
			err = fmt.Errorf("a's claim: the hub says %q claimed first", holder)
		}
		return err
	})
}

// testAgentWaitsForTheFirstOfASameDelivery hands delivery 1 of a step to
// agent b after first left agent a's mark of it in the hub (a answering
// that it holds the step), and checks that b waits for a and never runs
// the step once a ended it.
func testAgentWaitsForTheFirstOfASameDelivery(t *testing.T, first func(context.Context, *steps.Conn, string) error) {
	c, o := startHub(t)
	ctx := context.Background()
	s := steps.Step{Key: steps.Key("run", "S1"), Dispatch: 1, Lane: "l", Kind: "command", Argv: []string{"true"}}
	if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeDispatch, Dispatch: 1}); err != nil {
		t.Fatal(err)
	}
	if err := first(ctx, c, s.Key); err != nil {
		t.Fatal(err)
	}
	asked := make(chan struct{}, 1)
	sub, err := c.NC.Subscribe(c.LiveSubject(s.Key), func(m *nats.Msg) {
		var r steps.Record
		if json.Unmarshal(m.Data, &r) == nil && r.Type == steps.TypeAsk && r.Agent == "b" {
			_ = c.PublishLive(s.Key, steps.Record{Type: steps.TypeHeld, Dispatch: 1, Delivery: 1, Agent: "a"})
			select {
			case asked <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	started := make(chan int, 2)
	const ackWait = 400 * time.Millisecond
	runAgentAs(t, o, "b", ackWait, func(_ steps.Step, d int) { started <- d })
	if err := c.Offer(ctx, s); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case d := <-started:
		t.Fatalf("b started delivery %d beside a, without asking", d)
	case <-time.After(20 * time.Second):
		t.Fatal("b never asked who holds the step")
	}
	// While a answers, b waits (several AckWaits); then a ends the step.
	select {
	case d := <-started:
		t.Fatalf("b started delivery %d while a held it", d)
	case <-time.After(4 * ackWait):
	}
	if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeEnd, Dispatch: 1, Delivery: 1, Agent: "a"}); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-started:
		t.Fatalf("b started delivery %d after a ended it", d)
	case <-time.After(4 * ackWait):
	}
}
