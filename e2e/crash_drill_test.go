package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/daokit/daokit/relay/relaytest"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
)

// TestCrashDrill sends instructions (30; 300 with DAOKIT_DRILL=full) in
// bursts while the controller is SIGKILLed or SIGTERMed at random after
// each burst, and at a random point every second until the work is done;
// instructions queued behind the others outlive dozens of controllers (at
// least a hundred in the full drill). Every acknowledged instruction ends exactly once and
// DONE, none runs to completion twice, every message id is recorded once,
// resent old ids get their original acknowledgement, and every
// controller took a higher fencing generation than the one before.
func TestCrashDrill(t *testing.T) {
	n := rounds(30, 300)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 15))
	root := newRoot(t, simConfig("300ms"))
	ctl := startController(t, root)
	dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	client, err := relay.Dial(dctx, root, relay.DefaultClientConfig())
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	kills, terms := 0, 0
	strike := func() {
		if rng.IntN(2) == 0 {
			ctl.kill()
			kills++
		} else {
			ctl.stop()
			terms++
		}
		ctl = startController(t, root)
	}
	// Bursts of sends with a strike after each: the queue grows faster
	// than one lane works it off, so that the last instructions wait
	// through most of the strikes that follow.
	acks := map[string]relay.Ack{}
	burst := rounds(3, 10)
	for i := range n {
		id := fmt.Sprintf("drill-%03d", i)
		acks[id] = relaytest.SendInstruction(t, client, id, fmt.Sprintf("crash drill %d", i), 60*time.Second)
		if i%burst == burst-1 {
			strike()
		}
	}
	byTask := map[string]string{}
	for id, ack := range acks {
		byTask[ack.TaskID] = id
	}
	deadline := time.Now().Add(time.Duration(2*n) * time.Second)
	for {
		ended := map[string]bool{}
		for _, e := range events(t, root) {
			if op(e) == "RUN_FINISHED" {
				ended[e.TaskID] = true
			}
		}
		missing := 0
		for task := range byTask {
			if !ended[task] {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d acknowledged instructions never ended (seed %d)", missing, n, seed)
		}
		// The random point to strike at, while the queue drains. The
		// first strikes come too soon for a run to finish (a worker
		// needs 300 ms), so that the queued runs outlive them all.
		window := 1000
		if kills+terms < rounds(10, 100)+n/burst {
			window = 300
		}
		time.Sleep(time.Duration(rng.IntN(window)) * time.Millisecond)
		strike()
	}
	for range min(20, n) {
		id := fmt.Sprintf("drill-%03d", rng.IntN(n))
		again := relaytest.SendInstruction(t, client, id, "resent", 60*time.Second)
		if !again.Duplicate || again.EventID != acks[id].EventID || again.TaskID != acks[id].TaskID {
			t.Errorf("resent %s: %+v, want the original %+v", id, again, acks[id])
		}
	}
	received, finished, completed := map[string]int{}, map[string]int{}, map[string]int{}
	started, outlived, longest := 0, map[string]int{}, 0
	for _, e := range events(t, root) {
		switch {
		case op(e) == "CONTROLLER_STARTED":
			started++
		case op(e) == "INSTRUCTION_RECEIVED":
			outlived[e.TaskID] = -started
		}
		if op(e) == "RUN_FINISHED" && outlived[e.TaskID] <= 0 {
			outlived[e.TaskID] += started
			longest = max(longest, outlived[e.TaskID])
		}
		switch {
		case op(e) == "INSTRUCTION_RECEIVED":
			received[e.Payload.String("message_id")]++
		case op(e) == "RUN_FINISHED":
			finished[e.TaskID]++
			if s := e.Payload.String("status"); s != ledger.StatusDone {
				t.Errorf("task %s ended %s/%s", e.TaskID, s, e.Payload.String("reason_code"))
			}
		case e.EventType == ledger.EventStepCompleted:
			completed[e.TaskID+"/"+e.StepID]++
		}
	}
	twice := 0
	for task, id := range byTask {
		if finished[task] != 1 {
			t.Errorf("instruction %s (%s) ended %d times", id, task, finished[task])
		}
		if received[id] != 1 {
			t.Errorf("message %s recorded %d times", id, received[id])
		}
	}
	for step, k := range completed {
		if k > 1 {
			twice++
			t.Errorf("step %s completed %d times", step, k)
		}
	}
	if full() && longest < 100 {
		t.Errorf("the longest-waiting run outlived %d controllers, want at least 100", longest)
	}
	risingGenerations(t, root)
	validLedger(t, root)
	report := fmt.Sprintf("crash drill: %d instructions, %d SIGKILL, %d SIGTERM, %d controllers, longest run outlived %d restarts, %d steps completed twice, seed %d",
		n, kills, terms, kills+terms+1, longest, twice, seed)
	t.Log(report)
	if full() {
		fmt.Println(report)
	}
	ctl.stop()
}
