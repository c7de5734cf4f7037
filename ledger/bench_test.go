package ledger

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger/ledgertest"
)

// benchLedger returns a generated ledger of n events, cached under the
// system temp dir so that the 1M-event one (about 460 MB) is written once,
// not per benchmark run.
func benchLedger(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("daokit-bench-ledger-v1-%d", n))
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	if err := ledgertest.GenerateLedger(dir, n); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func BenchmarkTailEvents20(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			if n >= 1_000_000 && testing.Short() {
				b.Skip("1M events in -short mode")
			}
			path := filepath.Join(benchLedger(b, n), StateDir, EventsFile)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := TailEvents(path, 20)
				if err != nil || len(res.Events) != 20 {
					b.Fatalf("TailEvents: %d events, %v", len(res.Events), err)
				}
			}
			b.ReportMetric(float64(st.Size())/1e6, "file_MB")
		})
	}
}

func BenchmarkLoadSnapshot(b *testing.B) {
	root := benchLedger(b, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		if snap := LoadSnapshot(root); len(snap.Problems()) != 0 {
			b.Fatal(snap.Problems())
		}
	}
}

func BenchmarkAppendEvent(b *testing.B) {
	s := openStore(b, initRoot(b))
	e := testEvent(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.AppendEvent(e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendEvents100(b *testing.B) {
	s := openStore(b, initRoot(b))
	batch := make([]Event, 100)
	for i := range batch {
		batch[i] = testEvent(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.AppendEvents(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/event")
}

// BenchmarkMarshalLeases encodes a register as the controller rewrites it
// at every step's start: its standing lease and the 50 finished leases
// it keeps (controller.keptFinishedLeases).
func BenchmarkMarshalLeases(b *testing.B) {
	at := FormatTime(time.Date(2026, 11, 25, 23, 55, 57, 483767000, time.UTC))
	l := Leases{SchemaVersion: SchemaVersion, UpdatedAt: at}
	for i := range 51 {
		l.Leases = append(l.Leases, Lease{Lane: "reviewer", StepID: "I" + strconv.Itoa(i) + "-reviewer",
			TaskID: "DK-C3F18778", RunID: "DK-C3F18778_20261125T235551Z", ThreadID: "worker-reviewer-1",
			PID: 11460 + i, LeaseToken: "lease_7324770d890e4a4bbe894f0fbeb86a4f", Expiry: at,
			Status: LeaseReleased, LastHeartbeatAt: at, CreatedAt: at, UpdatedAt: at})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalDocument(l); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWatcherLatency appends b.N events at 1000 per second and
// measures, per event, the time from the start of AppendEvent to its
// delivery in a Change.
func BenchmarkWatcherLatency(b *testing.B) {
	root := initRoot(b)
	s := openStore(b, root)
	w, err := Watch(context.Background(), root, WatchOptions{EventsOffset: FromEnd})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	<-w.Changes() // the initial rescan

	n := b.N
	started := make([]atomic.Int64, n)
	lat := make([]float64, 0, n)
	writerErr := make(chan error, 1)
	b.ResetTimer()
	go func() {
		// Paced by schedule, not by a ticker, so that a slow append is
		// caught up instead of dropping ticks and the rate stays 1000/s.
		start := time.Now()
		pace := time.NewTimer(0)
		defer pace.Stop()
		for i := range n {
			<-pace.C
			pace.Reset(time.Until(start.Add(time.Duration(i+1) * time.Millisecond)))
			e := testEvent(i)
			e.DedupKey = "lat:" + strconv.Itoa(i)
			started[i].Store(time.Now().UnixNano())
			if err := s.AppendEvent(e); err != nil {
				writerErr <- err
				return
			}
		}
		writerErr <- nil
	}()
	for len(lat) < n {
		select {
		case ch := <-w.Changes():
			now := time.Now().UnixNano()
			for _, e := range ch.Events {
				i, err := strconv.Atoi(strings.TrimPrefix(e.DedupKey, "lat:"))
				if err != nil || i >= n {
					b.Fatalf("unexpected event %q", e.DedupKey)
				}
				lat = append(lat, float64(now-started[i].Load())/1e6)
			}
		case err := <-writerErr:
			if err != nil {
				b.Fatal(err)
			}
			writerErr = nil // the writer is done; keep receiving
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "median_ms")
	b.ReportMetric(lat[len(lat)*99/100], "p99_ms")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}
