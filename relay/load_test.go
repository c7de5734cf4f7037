package relay

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sendAll has clients send perClient instructions each, back to back and
// all at once, and returns the acks by instruction text.
func sendAll(t *testing.T, clients []*Client, perClient int) map[string]Ack {
	t.Helper()
	var mu sync.Mutex
	acks := make(map[string]Ack)
	var wg sync.WaitGroup
	for ci, c := range clients {
		wg.Go(func() {
			for i := range perClient {
				text := fmt.Sprintf("client %d instruction %d", ci, i)
				a, err := c.Forward(testCtx(t), text)
				if err != nil {
					t.Errorf("%s: %v", text, err)
					return
				}
				mu.Lock()
				acks[text] = a
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return acks
}

// checkExactlyOnce checks that the controller recorded each of want
// instructions once, and that every ack names a different record.
func checkExactlyOnce(t *testing.T, h *fakeHandler, acks map[string]Ack, want int) {
	t.Helper()
	if len(acks) != want {
		t.Errorf("acknowledged %d instructions, want %d", len(acks), want)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.order) != want {
		t.Errorf("controller recorded %d instructions, want %d (none lost, none duplicated)", len(h.order), want)
	}
	recorded := make(map[string]bool, len(h.texts))
	for _, text := range h.texts {
		if recorded[text] {
			t.Errorf("%q recorded twice", text)
		}
		recorded[text] = true
	}
	events := make(map[string]string, len(acks))
	for text, a := range acks {
		if !recorded[text] {
			t.Errorf("%q acknowledged but not recorded", text)
		}
		if other, dup := events[a.EventID]; dup {
			t.Errorf("%q and %q share ledger event %s", text, other, a.EventID)
		}
		events[a.EventID] = text
	}
}

func TestTenClientsThousandInstructions(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	clients := make([]*Client, 10)
	for i := range clients {
		clients[i] = dialTest(t, ts.path, fastClient(ts.path))
	}
	acks := sendAll(t, clients, 100)
	checkExactlyOnce(t, h, acks, 1000)
	for text, a := range acks {
		if a.Duplicate {
			t.Errorf("%q acknowledged as a duplicate with no reconnect", text)
		}
	}
}

// TestTenClientsThousandInstructionsWithDrops cuts every connection again
// and again while the instructions flow: resends carry their ids, and the
// controller still records each instruction exactly once.
func TestTenClientsThousandInstructionsWithDrops(t *testing.T) {
	t.Parallel()
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	clients := make([]*Client, 10)
	for i := range clients {
		clients[i] = dialTest(t, ts.path, fastClient(ts.path))
	}
	var drops atomic.Int64
	stop := make(chan struct{})
	chaosDone := make(chan struct{})
	go func() {
		defer close(chaosDone)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for next := 50; ; {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if h.uniqueInstructions() >= next {
				ts.l.dropAll()
				drops.Add(1)
				next += 50
			}
		}
	}()
	acks := sendAll(t, clients, 100)
	close(stop)
	<-chaosDone
	checkExactlyOnce(t, h, acks, 1000)
	if drops.Load() < 10 {
		t.Errorf("only %d drops happened; the test did not test much", drops.Load())
	}
	t.Logf("%d connection drops, %d handler calls for 1000 instructions", drops.Load(), h.totalCalls())
}
