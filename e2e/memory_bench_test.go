package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// queuedRuns is how many instructions BenchmarkQueuedInstructionsMemory
// leaves waiting behind one busy worker (issue 28: at most 15 MB for
// 300).
const queuedRuns = 300

// residentKB reads a field of /proc/<pid>/status (VmRSS, VmHWM) in KiB.
func residentKB(tb testing.TB, pid int, field string) int {
	tb.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// BenchmarkQueuedInstructionsMemory measures what instructions cost the
// controller while they wait for their lane: one worker holds the lane's
// only slot, 300 more instructions are acknowledged and wait behind it,
// and the controller's resident memory before and after is reported.
func BenchmarkQueuedInstructionsMemory(b *testing.B) {
	root := newRoot(b, drillTimings+`
[[lanes]]
name = "worker"
kind = "sim"
command = ["{daokit}", "worker", "sim", "--duration", "10m", "--lines", "2", "--", "{instruction}"]
stop_grace = "200ms"
`)
	ctl := startController(b, root)
	defer ctl.stop()
	client := dialRoot(b, root)
	defer client.Close()
	ctx := context.Background()
	if _, err := client.Forward(ctx, "the run that holds the lane"); err != nil {
		b.Fatal(err)
	}
	waitEvent(b, root, "the first worker", 30*time.Second, func(e ledger.Event) bool { return e.EventType == ledger.EventStepStarted })
	base := residentKB(b, ctl.pid(), "VmRSS")
	b.ResetTimer()
	for i := range queuedRuns {
		if _, err := client.Forward(ctx, fmt.Sprintf("queued instruction %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	// Every run has taken its place in the lane's queue once the last
	// one's place is recorded.
	waitEvent(b, root, "the last run queued", 60*time.Second, func(e ledger.Event) bool {
		return payloadInt(e, "queue_position") == queuedRuns
	})
	b.StopTimer()
	now := residentKB(b, ctl.pid(), "VmRSS")
	growth := float64(now-base) / 1024
	b.ReportMetric(float64(base)/1024, "rss-before-MiB")
	b.ReportMetric(float64(now)/1024, "rss-queued-MiB")
	b.ReportMetric(growth, "rss-growth-MiB")
	b.ReportMetric(float64(now-base)/queuedRuns, "KiB/queued")
}

// streamingWorkers and streamRate: BenchmarkStreamingWorkersMemory's
// twenty workers printing 1,000 lines/s each (issue 28: at most 30 MB).
const (
	streamingWorkers = 20
	streamRate       = 1000
)

// BenchmarkStreamingWorkersMemory measures the controller's resident
// memory while twenty workers each print 1,000 lines/s, with a window's
// connection reading the notices, over five seconds of full flow.
func BenchmarkStreamingWorkersMemory(b *testing.B) {
	root := newRoot(b, drillTimings+fmt.Sprintf(`
[[lanes]]
name = "worker"
kind = "sim"
concurrency = %d
command = ["{daokit}", "worker", "sim", "--flood", "60s", "--flood-rate", "%d", "--", "{instruction}"]
stop_grace = "200ms"
`, streamingWorkers, streamRate))
	ctl := startController(b, root)
	defer ctl.stop()
	client := dialRoot(b, root)
	defer client.Close()
	ctx := context.Background()
	go func() { // the window's side: read notices as they come
		for range client.Notices() {
		}
	}()
	if _, err := client.Observe(ctx); err != nil {
		b.Fatal(err)
	}
	for i := range streamingWorkers {
		if _, err := client.Forward(ctx, fmt.Sprintf("streaming run %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	// Every worker streams once every run generates (the status says so;
	// the log's tail is all output by then).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st, err := client.Observe(ctx)
		if err != nil {
			b.Fatal(err)
		}
		generating := 0
		for _, r := range st.Runs {
			if r.State == string(vocab.StateGenerating) {
				generating++
			}
		}
		if generating == streamingWorkers {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d workers generating after 60s", generating, streamingWorkers)
		}
	}
	b.ResetTimer()
	// A measurement over a fixed span of full flow, not a wait.
	peak, tick := 0, time.NewTicker(100*time.Millisecond)
	defer tick.Stop()
	// At the peak, how much is the process's own (anonymous: heap,
	// stacks) and how much the daokit binary's pages, shared with every
	// daokit process and kept in the page cache.
	anon, file := 0, 0
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); <-tick.C {
		if rss := residentKB(b, ctl.pid(), "VmRSS"); rss > peak {
			peak, anon, file = rss, residentKB(b, ctl.pid(), "RssAnon"), residentKB(b, ctl.pid(), "RssFile")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peak)/1024, "rss-peak-MiB")
	b.ReportMetric(float64(anon)/1024, "rss-anon-at-peak-MiB")
	b.ReportMetric(float64(file)/1024, "rss-file-at-peak-MiB")
	b.ReportMetric(float64(residentKB(b, ctl.pid(), "VmHWM"))/1024, "rss-hwm-MiB")
}
