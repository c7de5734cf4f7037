package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// BenchmarkAgentHostThroughput: one-second steps over four agent hosts
// (one slot each) through a real hub, offered by one controller four at
// a time, and how long they all take against the ideal (steps × 1 s / 4);
// beside it the same steps as four local workers, the controller's own
// overhead. The issue asks for 1,000 steps within 1.1× of the ideal
// 250 s; that many run with DAOKIT_DRILL=full, 100 otherwise.
func BenchmarkAgentHostThroughput(b *testing.B) {
	for _, host := range []string{"hub", "local"} {
		b.Run(host, func(b *testing.B) { benchThroughput(b, host) })
	}
}

func benchThroughput(b *testing.B, host string) {
	n, hosts := 100, 4
	if full() {
		n = 1000
	}
	dir := b.TempDir()
	h := startHubProc(b, dir, "127.0.0.1:0").url
	creds := filepath.Join(dir, "admin.nk")
	root := newRoot(b, fmt.Sprintf(`
[controller]
idle_exit = "0s"

[hub]
url = %q
root_id = %q
credentials = %q

[[lanes]]
name = "remote"
kind = "sim"
host = %q
concurrency = %d
command = ["{daokit}", "worker", "sim", "--duration", "1s", "--lines", "4", "--", "{instruction}"]
`, h, hubAgentRootID, creds, host, hosts))
	for i := range hosts {
		if host == "hub" {
			startAgent(b, h, creds, fmt.Sprintf("host-%d", i))
		}
	}
	ctl := startController(b, root)
	defer ctl.stop()
	client := dialRoot(b, root)
	defer client.Close()
	go func() {
		for range client.Notices() {
		}
	}()
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for i := range n {
		if _, err := client.Forward(ctx, fmt.Sprintf("step %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	done := 0
	for deadline := time.Now().Add(time.Duration(n)*time.Second + time.Minute); done < n; time.Sleep(200 * time.Millisecond) {
		done = 0
		for _, e := range events(b, root) {
			if op(e) == "RUN_FINISHED" && e.Payload.String("status") == ledger.StatusDone {
				done++
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d runs DONE by the deadline", done, n)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	ideal := time.Duration(n) * time.Second / time.Duration(hosts)
	b.ReportMetric(elapsed.Seconds(), "s-total")
	b.ReportMetric(elapsed.Seconds()/ideal.Seconds(), "x-ideal")
}
