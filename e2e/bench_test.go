package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/relay/relaytest/latency"
)

// floodConfig runs one lane whose worker prints at rate lines per second
// for a long time (the sim's flood mode), so that the acks measured meet a
// controller busy with worker output.
func floodConfig(rate int) string {
	return fmt.Sprintf(`
[controller]
idle_exit = "0s"

[[lanes]]
name = "worker"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--flood", "60s", "--flood-rate", "%d", "--", "{instruction}"]
stop_grace = "200ms"
`, rate)
}

// peakRSS reads a process's peak resident memory (VmHWM) in MiB.
func peakRSS(pid int) float64 {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	return 0
}

// benchAcksWhileWorking measures instruction acks (socket + durable
// append) against a real controller whose worker prints rate lines/s.
func benchAcksWhileWorking(b *testing.B, rate int) {
	root := b.TempDir()
	run(b, "init", "--root", root)
	os.WriteFile(filepath.Join(root, "daokit.toml"), []byte(floodConfig(rate)), 0o644)
	ctl := startController(b, root)
	defer ctl.stop()
	ctx := context.Background()
	client, err := relay.Dial(ctx, root, relay.DefaultClientConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	go func() { // the window's side: read notices as they come
		for range client.Notices() {
		}
	}()
	if _, err := client.Observe(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := client.Forward(ctx, "the flooding run"); err != nil {
		b.Fatal(err)
	}
	// Measure once the flood is in full flow: its output reaches the ledger.
	waitEvent(b, root, "worker output", 30*time.Second, func(e ledger.Event) bool { return op(e) == "WORKER_OUTPUT" })
	b.ResetTimer()
	n := max(b.N, 500)
	lat, err := latency.MeasureAcks(ctx, func(ctx context.Context, s string) error { _, err := client.Forward(ctx, s); return err }, n, func(i int) string { return fmt.Sprintf("instruction %d", i) })
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(lat.Median.Microseconds())/1000, "ack-median-ms")
	b.ReportMetric(float64(lat.P99.Microseconds())/1000, "ack-p99-ms")
	b.ReportMetric(peakRSS(ctl.pid()), "controller-peak-rss-MiB")
}

// BenchmarkAcksWhileAWorkerStreams: a worker printing 100 lines/s, an
// agent's pace.
func BenchmarkAcksWhileAWorkerStreams(b *testing.B) { benchAcksWhileWorking(b, 100) }

// BenchmarkAcksWhileAWorkerFloods: a worker printing 50,000 lines/s.
func BenchmarkAcksWhileAWorkerFloods(b *testing.B) { benchAcksWhileWorking(b, 50000) }
