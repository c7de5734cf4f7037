package worker

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/worker/transcript"
)

// heapPeak samples the live heap until stop is closed and returns the
// highest HeapAlloc seen.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	peak := make(chan uint64, 1)
	go func() {
		var ms runtime.MemStats
		var max uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			max = maxU(max, ms.HeapAlloc)
			select {
			case <-stop:
				peak <- max
				return
			case <-tick.C:
			}
		}
	}()
	return peak
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// TestFloodMemoryStaysBounded runs a child that prints about 50,000
// lines a second for about two seconds into a consumer that takes one
// record per millisecond. The runner must drop (and count) what the
// consumer cannot take, keep its heap bounded, never lose the session or
// the result, and still write every byte to the artifact file.
func TestFloodMemoryStaysBounded(t *testing.T) {
	checkGoroutines(t)
	const rate = 50_000
	total := 100_000
	if testing.Short() {
		total = 20_000
	}
	dir := t.TempDir()
	spec := helperSpec(t, "sim", &SimOptions{Instruction: "flood", FloodLines: total, FloodRate: rate})
	spec.ArtifactDir = dir

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := make(chan struct{})
	peak := heapPeak(stop)

	began := time.Now()
	p := start(t, context.Background(), spec)
	var delivered, dropped, gaps int
	var session, result bool
	slow := time.NewTicker(time.Millisecond)
	defer slow.Stop()
	for rec := range p.Records() {
		<-slow.C // a consumer slower than the worker
		delivered++
		dropped += rec.Dropped
		if rec.Status == transcript.StatusGap {
			gaps++
			delivered--
		}
		for _, ev := range rec.Events {
			session = session || ev.Type == transcript.EventSession
			result = result || ev.Type == transcript.EventResult
		}
	}
	res := p.Wait()
	elapsed := time.Since(began)
	close(stop)
	peakHeap := <-peak

	wantLines := int64(total + 4) // session, heartbeat, flood…, message, result
	if res.Stats.StdoutLines != wantLines || !res.Success() {
		t.Fatalf("result: got %d stdout lines, %+v; want %d lines and success", res.Stats.StdoutLines, res, wantLines)
	}
	if int64(delivered+dropped) != wantLines || int64(dropped) != res.Stats.Dropped {
		t.Errorf("delivered %d + dropped %d != %d lines (Stats.Dropped %d)", delivered, dropped, wantLines, res.Stats.Dropped)
	}
	if !session || !result {
		t.Errorf("critical records lost: session %v, result %v", session, result)
	}
	if dropped == 0 {
		t.Errorf("a consumer at 1000 records/s kept up with %d lines/s; the test measures nothing", rate)
	}

	// Every byte reached the artifact file, in order.
	f, err := os.Open(filepath.Join(dir, StdoutLog))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var n, floodLines int64
	var size int64
	for sc.Scan() {
		n++
		size += int64(len(sc.Bytes())) + 1
		if strings.HasPrefix(sc.Text(), "Flood line ") {
			floodLines++
		}
	}
	if n != wantLines || floodLines != int64(total) || size != res.Stats.StdoutBytes {
		t.Errorf("stdout.log: got %d lines (%d flood) and %d bytes, want %d (%d) and %d", n, floodLines, size, wantLines, total, res.Stats.StdoutBytes)
	}

	growth := int64(peakHeap) - int64(before.HeapAlloc)
	t.Logf("flood: worker printed %d lines (%.1f MB) in %v = %.0f lines/s; consumer done after %v; delivered %d, dropped %d; heap before %.1f MB, peak %.1f MB (growth %.1f MB)",
		res.Stats.StdoutLines, float64(res.Stats.StdoutBytes)/1e6, res.Duration().Round(time.Millisecond),
		float64(res.Stats.StdoutLines)/res.Duration().Seconds(), elapsed.Round(time.Millisecond), delivered, dropped,
		float64(before.HeapAlloc)/1e6, float64(peakHeap)/1e6, float64(growth)/1e6)
	// The queue holds at most DefaultQueueBytes of records; allow the
	// garbage of the lines that passed through on top of that.
	if limit := int64(4 * DefaultQueueBytes); growth > limit {
		t.Errorf("heap grew by %.1f MB, want at most %.1f MB", float64(growth)/1e6, float64(limit)/1e6)
	}
}

// TestDiscardEndsDelivery: a consumer that leaves early calls Discard; the
// worker still runs to its end and no goroutine stays behind.
func TestDiscardEndsDelivery(t *testing.T) {
	checkGoroutines(t)
	p := start(t, context.Background(), helperSpec(t, "sim", &SimOptions{Instruction: "x", FloodLines: 20_000}))
	<-p.Records()
	p.Discard()
	for range p.Records() {
	}
	if r := p.Wait(); !r.Success() || r.Stats.StdoutLines != 20_004 {
		t.Errorf("result: got %+v, want success after all lines", r)
	}
}

// TestWaitWithoutReading: a caller that only waits for the result gets it
// even though nobody reads the records; Discard then frees the rest.
func TestWaitWithoutReading(t *testing.T) {
	checkGoroutines(t)
	spec := helperSpec(t, "sim", &SimOptions{Instruction: "x", FloodLines: 10_000})
	spec.QueueLines = 8
	p := start(t, context.Background(), spec)
	r := p.Wait()
	if !r.Success() || r.Summary.Result == nil || r.Summary.SessionID == "" {
		t.Errorf("result: got %+v, want success with the session and result kept", r)
	}
	p.Discard()
}

// BenchmarkFlood measures the runner's throughput on a child printing as
// fast as it can, with a consumer that keeps up.
func BenchmarkFlood(b *testing.B) {
	const lines = 200_000
	raw, err := jsonSim(SimOptions{Instruction: "bench", FloodLines: lines})
	if err != nil {
		b.Fatal(err)
	}
	spec := Spec{Argv: []string{os.Args[0]}, Kind: "sim", ArtifactDir: b.TempDir(),
		Env: []string{helperEnv + "=sim", helperOptsEnv + "=" + raw}}
	var total time.Duration
	var wg sync.WaitGroup
	for b.Loop() {
		began := time.Now()
		p, err := Start(context.Background(), spec)
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range p.Records() {
			}
		}()
		p.Wait()
		wg.Wait()
		total += time.Since(began)
	}
	b.ReportMetric(float64(lines)*float64(b.N)/total.Seconds(), "lines/s")
}
