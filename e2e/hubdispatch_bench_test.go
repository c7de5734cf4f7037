package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/daokit/daokit/ledger"
	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkHubDispatchFromAck is issue 31's first figure: how long a step
// dispatched through the hub waits from the acknowledgement of its
// instruction to the moment an agent on another network namespace starts
// its process (that process's own start excluded), on loopback veths, one
// instruction at a time; the hub, the agent and the controller (the
// root's leader on the hub) each on a namespace of their own. The wait
// is split into its parts: ack → the controller begins the step's offer
// and starts its relay (`daokit worker hub`) → the offering code runs
// (the relay's process start; none when the controller offered the step
// ahead of its relay, as it does while its hub connection is up:
// hub/steps.OfferAhead) → the hub stores the offer → the agent receives
// it → the agent is about to start the process. The total is reported
// with and without the relay's process start. Every instant is one
// machine's clock. It
// ignores b.N: 40 instructions (DAOKIT_DRILL=full: 200).
func BenchmarkHubDispatchFromAck(b *testing.B) {
	lab := newNetLab(b)
	hubDir := b.TempDir()
	h := lab.startNetHubProc(hubDir)
	creds := hubDir + "/admin.nk"
	lab.host("c", false) // the controller and the person: this namespace
	nsA, _ := lab.host("a", true)
	lab.startNetAgent(nsA, h.url, creds, "host-a")
	root := newRoot(b, hubAgentConfig(h.url, creds, "1ms"))
	ctl := startController(b, root)
	defer ctl.stop()
	client := dialRoot(b, root)
	defer client.Close()
	go func() {
		for range client.Notices() {
		}
	}()
	n := 40
	if full() {
		n = 200
	}
	ctx := context.Background()
	type sent struct {
		taskID string
		ack    time.Time
	}
	var all []sent
	b.ResetTimer()
	for i := range n {
		ack, err := client.Forward(ctx, fmt.Sprintf("dispatch %d", i))
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, sent{ack.TaskID, time.Now()})
		waitRunFinished(b, root, ack.TaskID)
	}
	b.StopTimer()
	runOf := map[string]string{}
	for _, e := range events(b, root) {
		if op(e) == "RUN_FINISHED" && e.Payload.String("status") == ledger.StatusDone {
			runOf[e.TaskID] = e.RunID
		}
	}
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: h.url, Creds: creds, Name: "bench"}, rt, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	parts := []string{"ack→controller offers (or starts the relay)", "relay's process start (0: offered ahead)", "offering code→hub stored the offer",
		"hub stored→agent received", "agent received→process about to start", "total", "total without the relay's process start"}
	figures := make([][]time.Duration, len(parts))
	for _, s := range all {
		r := startRecord(b, conn, rt, steps.Key(runOf[s.taskID], "S1"))
		if r == nil || r.SpawnAt == 0 || r.RelayAt == 0 || r.ReceivedAt == 0 {
			b.Fatalf("%s: no start record with its instants: %+v", s.taskID, r)
		}
		ack := s.ack.UnixNano()
		segs := []int64{r.SpawnAt - ack, r.RelayAt - r.SpawnAt, r.QueuedAt - r.RelayAt, r.ReceivedAt - r.QueuedAt, r.StartAt - r.ReceivedAt,
			r.StartAt - ack, r.StartAt - ack - (r.RelayAt - r.SpawnAt)}
		for i, d := range segs {
			figures[i] = append(figures[i], time.Duration(d))
		}
	}
	var lines []string
	for i, name := range parts {
		f := figures[i]
		slices.Sort(f)
		lines = append(lines, fmt.Sprintf("%s: median %v, p90 %v", name, f[len(f)/2].Round(10*time.Microsecond), f[len(f)*9/10].Round(10*time.Microsecond)))
	}
	b.Logf("dispatch through the hub to an agent on another namespace, %d instructions one at a time:\n  %s", n, strings.Join(lines, "\n  "))
	med := func(i int) float64 { return float64(figures[i][len(figures[i])/2].Microseconds()) / 1000 }
	p90 := func(i int) float64 { return float64(figures[i][len(figures[i])*9/10].Microseconds()) / 1000 }
	b.ReportMetric(med(5), "ms-median")
	b.ReportMetric(p90(5), "ms-p90")
	b.ReportMetric(med(6), "ms-median-norelay")
	b.ReportMetric(p90(6), "ms-p90-norelay")
}

// waitRunFinished waits for the task's run to end.
func waitRunFinished(b testing.TB, root, taskID string) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, e := range events(b, root) {
			if e.TaskID == taskID && op(e) == "RUN_FINISHED" {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s did not finish within 30s", taskID)
		}
		time.Sleep(20 * time.Millisecond) // polling the ledger; the deadline bounds it
	}
}

// startRecord is the start record of key's step on the hub.
func startRecord(b testing.TB, conn *steps.Conn, rt naming.Root, key string) *steps.Record {
	b.Helper()
	ctx := context.Background()
	s, err := conn.JS.Stream(ctx, rt.ResultStream())
	if err != nil {
		b.Fatal(err)
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{rt.ResultSubject(key)}})
	if err != nil {
		b.Fatal(err)
	}
	batch, err := cons.FetchNoWait(1000)
	if err != nil {
		b.Fatal(err)
	}
	var found *steps.Record
	for msg := range batch.Messages() {
		var r steps.Record
		if json.Unmarshal(msg.Data(), &r) == nil && r.Type == steps.TypeStart && found == nil {
			found = &r
		}
	}
	return found
}
