package relay

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/relay/relaytest/latency"
)

// minSamples is the fewest round trips a latency figure is computed from,
// so that p99 means something even under `make bench` (-benchtime=1x).
const minSamples = 2000

// durableHandler stands in for the controller's durable append: each new
// instruction is appended to a file and fsynced before it is acknowledged,
// and ids are deduplicated, as the ledger's dedup_key does.
type durableHandler struct {
	*fakeHandler
	mu sync.Mutex
	f  *os.File
}

func newDurableHandler(tb testing.TB) *durableHandler {
	tb.Helper()
	f, err := os.OpenFile(filepath.Join(shortDir(tb), "events.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = f.Close() })
	return &durableHandler{fakeHandler: newFakeHandler(), f: f}
}

func (h *durableHandler) HandleInstruction(ctx context.Context, req Request, in Instruction) (Ack, error) {
	h.fakeHandler.mu.Lock()
	a, seen := h.acks[req.ID]
	h.fakeHandler.mu.Unlock()
	if seen {
		a.Duplicate = true
		return a, nil
	}
	line, _ := json.Marshal(map[string]string{"event_type": "INSTRUCTION", "dedup_key": req.ID, "text": in.Text})
	h.mu.Lock()
	_, err := h.f.Write(append(line, '\n'))
	if err == nil {
		err = h.f.Sync()
	}
	h.mu.Unlock()
	if err != nil {
		return Ack{}, err
	}
	return h.fakeHandler.HandleInstruction(ctx, req, in)
}

// measureAcks forwards max(b.N, minSamples) instructions through c one by
// one and reports ns/op and the median and p99 in microseconds.
func measureAcks(b *testing.B, c *Client) latency.Latency {
	b.Helper()
	ctx := context.Background()
	for range 100 { // warm up connections, maps and the file
		if _, err := c.Forward(ctx, "warm-up"); err != nil {
			b.Fatal(err)
		}
	}
	n := max(b.N, minSamples)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	start := time.Now()
	lat, err := latency.MeasureAcks(ctx, forwardOf(c), n, func(i int) string { return "instruction " + strconv.Itoa(i) })
	elapsed := time.Since(start)
	b.StopTimer()
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Fatal(err)
	}
	// Per round trip, since n may exceed b.N; client and server together.
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/op")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/op")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/op")
	b.ReportMetric(float64(lat.Median.Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat.P99.Nanoseconds())/1e3, "p99-µs")
	return lat
}

// BenchmarkAckRoundTrip times an instruction from Forward to its ack over
// a real unix socket: "memory" with an in-memory controller (the relay's
// own cost), "fsync" with an fsynced append per instruction (the budget of
// the issue: median under 2 ms, p99 under 10 ms).
func BenchmarkAckRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name string
		h    func(testing.TB) Handler
	}{
		{"memory", func(testing.TB) Handler { return newFakeHandler() }},
		{"fsync", func(tb testing.TB) Handler { return newDurableHandler(tb) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path := startServerWith(b, tc.h(b))
			c := dialTest(b, path, fastClient(path))
			measureAcks(b, c)
		})
	}
}

// BenchmarkAckUnderFlood times acks while the controller floods worker
// output to three observers: the sender itself (whose window reads its
// notices), a window that never reads them, and a socket that is never
// read at all. "unpaced" floods as fast as Notify goes, which saturates
// this machine; "20k/s" is a few very chatty workers' worth. B/op counts
// everything the process allocated per ack, the flood included; heap-MiB is
// the heap in use at the end, which the bounded queues keep flat however
// long the flood runs.
func BenchmarkAckUnderFlood(b *testing.B) {
	for _, tc := range []struct {
		name  string
		perMs int
	}{{"unpaced", 0}, {"20k/s", 20}} {
		b.Run(tc.name, func(b *testing.B) { benchAckUnderFlood(b, tc.perMs) })
	}
}

func benchAckUnderFlood(b *testing.B, perMs int) {
	h := newFakeHandler()
	ts := startServer(b, h, ServerConfig{})
	c := dialTest(b, ts.path, fastClient(ts.path))
	lazy := dialTest(b, ts.path, fastClient(ts.path))
	for _, o := range []*Client{c, lazy} {
		if _, err := o.Observe(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	dead := dialRaw(b, ts.path)
	dead.send(`{"v":1,"id":"o","type":"observe","action":"observe"}`)
	read := make(chan int)
	go func() {
		n := 0
		for range c.Notices() {
			n++
		}
		read <- n
	}()
	stop := make(chan struct{})
	sent := flood(ts.Server, stop, perMs)
	measureAcks(b, c)
	close(stop)
	fl := <-sent
	_ = c.Close()
	b.ReportMetric(float64(fl.notices), "notices")
	b.ReportMetric(fl.perSecond(), "notices/s")
	b.ReportMetric(float64(<-read), "read")
	b.ReportMetric(float64(ts.Stats().PeakQueued), "peak-queue")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

// BenchmarkNotify times Notify with ten observers that read everything.
func BenchmarkNotify(b *testing.B) {
	ts := startServer(b, newFakeHandler(), ServerConfig{})
	var wg sync.WaitGroup
	var clients []*Client
	for range 10 {
		c := dialTest(b, ts.path, fastClient(ts.path))
		if _, err := c.Observe(context.Background()); err != nil {
			b.Fatal(err)
		}
		clients = append(clients, c)
		wg.Go(func() {
			for range c.Notices() {
			}
		})
	}
	b.Cleanup(func() {
		for _, c := range clients {
			_ = c.Close()
		}
		wg.Wait()
	})
	n := Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{TaskID: "T", RunID: "R", StepID: "S1", Stream: "stdout", Line: "compiling package 42 of 97"}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := ts.Notify(n); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(ts.Stats().Dropped), "dropped")
}

// forwardOf is c's Forward as latency.MeasureAcks sends.
func forwardOf(c *Client) func(context.Context, string) error {
	return func(ctx context.Context, text string) error {
		_, err := c.Forward(ctx, text)
		return err
	}
}
