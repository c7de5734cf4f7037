package controller

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/relay/relaytest/latency"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// BenchmarkInstructionAck measures what a person waits for after Enter:
// send → durable append (fsync) → ack, over the real socket. The runs the
// instructions start queue behind each other on a lane running `true`.
func BenchmarkInstructionAck(b *testing.B) {
	cfg := shellConfig("true")
	h := startHarness(b, b.TempDir(), cfg)
	defer h.stop()
	ctx := context.Background()
	b.ResetTimer()
	// Percentiles need samples: at least 1,000 acks, whatever b.N is.
	lat, err := latency.MeasureAcks(ctx, func(ctx context.Context, s string) error { _, err := h.client.Forward(ctx, s); return err }, max(b.N, 1000), func(i int) string { return fmt.Sprintf("instruction %d", i) })
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(lat.Median.Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat.P99.Microseconds())/1000, "p99-ms")
}

// BenchmarkStreamingWorkerAck is BenchmarkInstructionAck while a worker
// streams, in process: the first instruction's worker prints 100 lines/s
// (an agent's pace) for as long as the benchmark runs, its output goes
// through the controller to the ledger and to a window that reads it,
// and the instructions measured queue behind it on its lane (issue 28:
// p99 at most 4 ms).
func BenchmarkStreamingWorkerAck(b *testing.B) {
	cfg := shellConfig(`i=0; while [ $i -lt 60000 ]; do echo "line $i"; i=$((i+1)); sleep 0.01; done`)
	h := startHarness(b, b.TempDir(), cfg)
	defer h.stop()
	ctx := context.Background()
	if _, err := h.client.Observe(ctx); err != nil {
		b.Fatal(err)
	}
	read := make(chan struct{})
	go func() { // the window's side: read notices as they come
		defer close(read)
		for range h.client.Notices() {
		}
	}()
	first := h.forward("the streaming run")
	h.waitFor("the worker's output", func(e ledger.Event) bool {
		return e.TaskID == first.TaskID && op(e) == opWorkerOutput
	})
	b.ResetTimer()
	lat, err := latency.MeasureAcks(ctx, func(ctx context.Context, s string) error { _, err := h.client.Forward(ctx, s); return err }, max(b.N, 1000), func(i int) string { return fmt.Sprintf("instruction %d", i) })
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(lat.Median.Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat.P99.Microseconds())/1000, "p99-ms")
	h.stop() // closes the window's connection too
	<-read
}

// TestThousandInstructionsFromTenClients sends 1,000 instructions back to
// back from 10 concurrent clients: every one is acknowledged, none twice,
// none lost (the log holds exactly one record per message id).
func TestThousandInstructionsFromTenClients(t *testing.T) {
	t.Parallel()
	const clients, each = 10, 100
	if testing.Short() {
		t.Skip("sends 1,000 durable instructions")
	}
	cfg := shellConfig("true")
	h := startHarness(t, t.TempDir(), cfg)
	var wg sync.WaitGroup
	acks := make(chan relay.Ack, clients*each)
	errs := make(chan error, clients*each)
	for c := range clients {
		wg.Go(func() {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			client, err := relay.Dial(dctx, h.root, relay.DefaultClientConfig())
			cancel()
			if err != nil {
				errs <- err
				return
			}
			defer client.Close()
			for i := range each {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				ack, err := client.Forward(ctx, fmt.Sprintf("client %d instruction %d", c, i))
				cancel()
				if err != nil {
					errs <- err
					continue
				}
				acks <- ack
			}
		})
	}
	wg.Wait()
	close(acks)
	close(errs)
	for err := range errs {
		t.Errorf("forward: %v", err)
	}
	tasks := map[string]bool{}
	for ack := range acks {
		if ack.Duplicate || tasks[ack.TaskID] {
			t.Errorf("ack %+v duplicated", ack)
		}
		tasks[ack.TaskID] = true
	}
	if len(tasks) != clients*each {
		t.Fatalf("%d distinct acks, want %d", len(tasks), clients*each)
	}
	recorded := map[string]int{}
	for _, e := range h.events() {
		if op(e) == opInstruction {
			recorded[e.Payload.String("message_id")]++
		}
	}
	if len(recorded) != clients*each {
		t.Errorf("%d instructions recorded, want %d", len(recorded), clients*each)
	}
	for id, n := range recorded {
		if n != 1 {
			t.Errorf("message %s recorded %d times", id, n)
		}
	}
}

// BenchmarkLivenessPass100Lanes measures one detect pass over 100 running
// workers (real, idle processes): lease renewal, silence evaluation and the
// heartbeat and lease writes. At one pass a second, CPU share of one core
// is ns/op ÷ 10⁷ %.
func BenchmarkLivenessPass100Lanes(b *testing.B) {
	const lanes = 100
	root := b.TempDir()
	cfg := config.DefaultConfig()
	opts := Options{Root: root, Config: cfg, Now: time.Now}
	c, err := open(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	defer c.store.Close()
	defer c.startDocs()()
	now := time.Now()
	var rs []*run
	for i := range lanes {
		proc, err := worker.Start(context.Background(), worker.Spec{Argv: []string{"sleep", "600"}, Kind: "command"})
		if err != nil {
			b.Fatal(err)
		}
		defer func() { proc.Stop(transcript.StopCancelled); proc.Discard(); proc.Wait() }()
		r := c.newRun(instruction{MessageID: fmt.Sprint("m", i), Text: "x", At: now})
		r.proc = proc
		rs = append(rs, r)
	}
	var leases ledger.Leases
	c.do(func(st *loopState) {
		for i, r := range rs {
			r.lease, _ = heal.Hold(&st.leases, heal.LeaseSpec{Lane: fmt.Sprint("lane-", i), TaskID: r.pipeline.TaskID, RunID: r.pipeline.RunID,
				StepID: "S1", Holder: heal.Holder{ThreadID: "w", PID: r.proc.PID()}, TTL: time.Minute}, now)
			st.order = append(st.order, r)
		}
		st.current = st.order[0]
		leases = st.leases
	})
	if _, err := c.store.WriteLeases(leases); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		c.checkLiveness()
	}
	b.StopTimer()
	perPass := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(perPass)/float64(time.Second)*100, "%core-at-1Hz")
	_ = ledger.SchemaVersion
}

// BenchmarkLeaseBookkeeping10000Runs measures the lease work of 10,000
// quick runs in one controller's life: each takes its worker's and its
// own lease (written at once, as before a worker starts) and releases
// them (written, pruned). The register must stay small, so the cost per
// run stays flat: the last thousand runs within 20 % of the first. The
// root is on /dev/shm when there is one: on a disk, two fsyncs a write
// would hide the cost that grows with the register (encoding, writing).
func BenchmarkLeaseBookkeeping10000Runs(b *testing.B) {
	const runs, group = 10_000, 1_000
	for b.Loop() {
		root := b.TempDir()
		if dir, err := os.MkdirTemp("/dev/shm", "daokit-bench-"); err == nil {
			root = dir
			defer os.RemoveAll(dir)
		}
		c, err := open(Options{Root: root, Config: config.DefaultConfig(), Now: time.Now})
		if err != nil {
			b.Fatal(err)
		}
		stopDocs := c.startDocs()
		var first, last time.Duration
		start := time.Now()
		for i := range runs {
			r := c.newRun(instruction{MessageID: fmt.Sprint("quick-", i), Text: "x", At: time.Now()})
			c.do(func(st *loopState) { c.takeLeases(st, r, "S1", "worker", os.Getpid()) })
			c.flushDocs()
			c.released(r)
			c.flushDocs() // the document writer's write of the release
			switch i + 1 {
			case group:
				first = time.Since(start)
			case runs - group:
				start = time.Now()
			case runs:
				last = time.Since(start)
			}
		}
		kept := 0
		c.do(func(st *loopState) { kept = len(st.leases.Leases) })
		stopDocs()
		c.journal.close()
		c.store.Close()
		c.close()
		b.ReportMetric(float64(first.Microseconds())/group, "first-1000-µs/run")
		b.ReportMetric(float64(last.Microseconds())/group, "last-1000-µs/run")
		b.ReportMetric(float64(last)/float64(first), "last/first")
		b.ReportMetric(float64(kept), "leases-kept")
	}
}
