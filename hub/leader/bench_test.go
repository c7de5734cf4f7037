package leader_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/leader"
	"github.com/daokit/daokit/hub/mirror"
	"github.com/daokit/daokit/ledger"
)

// startHub starts an in-process hub on a free loopback port; the cleanup
// stops it.
func startHub(tb testing.TB) *hub.Hub {
	tb.Helper()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	return h
}

// lead campaigns for root id on h and reconciles dir.
func lead(tb testing.TB, h *hub.Hub, id, dir string) *leader.Leader {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := leader.Campaign(ctx, leader.Options{Hub: mirror.Hub{URL: h.ClientURL(), Credentials: h.CredentialsFile()},
		Root: id, TTL: 2 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(l.Close)
	if _, err := l.Reconcile(ctx, dir); err != nil {
		tb.Fatal(err)
	}
	return l
}

// openStore opens a fresh ledger root with replica (nil: none).
func openStore(tb testing.TB, dir string, replica ledger.Replica) *ledger.Store {
	tb.Helper()
	s, err := ledger.Open(dir, ledger.Options{CreateStateDir: true, Replica: replica})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func events(n int) []ledger.Event {
	out := make([]ledger.Event, n)
	for i := range out {
		out[i] = ledger.NewEvent(time.Now(), "t1", "r1", "", ledger.EventSystem, ledger.SeverityInfo,
			ledger.ObjectOf("operation", "WORKER_OUTPUT", "line", fmt.Sprintf("output line %d of a step", i)))
	}
	return out
}

// BenchmarkAppend measures events per second appended to events.jsonl
// (one write and fdatasync per batch) alone and through the hub first
// (one message per line, expected last sequence, the hub fsyncing every
// write), in the same run, for batches of 1 (an acknowledgement alone)
// and 64 (group commit under load).
func BenchmarkAppend(b *testing.B) {
	h := startHub(b)
	for _, batch := range []int{1, 64} {
		evs := events(batch)
		for _, via := range []string{"local", "hub"} {
			b.Run(fmt.Sprintf("%s/batch=%d", via, batch), func(b *testing.B) {
				dir := filepath.Join(b.TempDir(), "root")
				var replica ledger.Replica
				if via == "hub" {
					replica = lead(b, h, fmt.Sprintf("bench-%d-%d", batch, b.N), dir)
				}
				s := openStore(b, dir, replica)
				b.ResetTimer()
				for range b.N {
					if err := s.AppendEvents(evs); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
