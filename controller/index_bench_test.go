package controller

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// BenchmarkStartWith1000Pending measures how long a controller takes from
// Run to serving its socket on a ledger of 10k, 100k and 1M events of
// finished instructions (five events each) plus 1,000 instructions still
// waiting. The goal: under 200 ms at 1M, and no growth with the number of
// finished instructions. Each iteration is a real start and stop (which
// starts one worker and stops it); only the start is timed.
func BenchmarkStartWith1000Pending(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			root := b.TempDir()
			writeHistory(b, root, n, 1000)
			cfg := shellConfig("sleep 600")
			b.ResetTimer()
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				ready := make(chan struct{})
				done := make(chan error, 1)
				go func() {
					done <- Run(ctx, Options{Root: root, Config: cfg, Self: "/nonexistent/daokit", Lang: "en",
						Ready: func(string) { close(ready) }})
				}()
				select {
				case <-ready:
				case err := <-done:
					cancel()
					b.Fatalf("controller did not start: %v", err)
				}
				b.StopTimer()
				cancel()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms-to-serve")
		})
	}
}

// writeHistory writes a ledger of about events events: finished
// instructions, then pending ones, and the index a controller would have
// checkpointed after writing them.
func writeHistory(tb testing.TB, root string, events, pending int) {
	tb.Helper()
	if _, err := ledger.Init(root, time.Now()); err != nil {
		tb.Fatal(err)
	}
	stateDir := ledger.Layout{Root: root}.StateDir()
	x := newInstrIndex(filepath.Join(stateDir, indexDir))
	if err := os.MkdirAll(x.dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(stateDir, ledger.EventsFile), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var offset int64
	put := func(e ledger.Event) {
		line, err := ledger.MarshalLine(e)
		if err != nil {
			tb.Fatal(err)
		}
		n, _ := w.Write(line)
		offset += int64(n)
		x.fold(&e)
	}
	factory := eventFactory{now: time.Now}
	for i := 0; i < events/5; i++ {
		id := fmt.Sprint("done-", i)
		put(instructionEvent(factory, id))
		for range 3 {
			put(factory.system(taskIDFor(id), "run-1", "S1", ledger.SeverityInfo, opWorkerOutput,
				"lines", []any{ledger.ObjectOf("stream", "stdout", "line", "compiling package 12 of 40, all tests so far pass")}))
		}
		put(finishedEvent(factory, id))
	}
	for i := range pending {
		put(instructionEvent(factory, fmt.Sprint("pending-", i)))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	x.offset = offset
	if err := x.checkpoint(); err != nil {
		tb.Fatal(err)
	}
}
