package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/steps"
)

// TestRunningStepBeatsWithItsCPUTime: while a step's process runs, its
// agent sends beats on the step's live subject, naming the dispatch, the
// delivery and itself, with the CPU time the process used so far, which
// grows while it computes (its relay reads them: hub/steps' pulse).
func TestRunningStepBeatsWithItsCPUTime(t *testing.T) {
	c, o := startHub(t)
	runAgentAs(t, o, "a", time.Second, nil)
	enough := filepath.Join(t.TempDir(), "enough")
	s := steps.Step{Key: steps.Key("run", "S1"), Dispatch: 1, Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", `while [ ! -e "$0" ]; do :; done`, enough}}
	beats := make(chan steps.Record, 1000)
	sub, err := c.ListenBeats(s.Key, 1, beats)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	ctx := context.Background()
	if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeDispatch, Dispatch: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Offer(ctx, s); err != nil {
		t.Fatal(err)
	}
	// Beats until the CPU time moved twice (three readings apart).
	var got []steps.Record
	for moved := 0; moved < 2; {
		select {
		case r := <-beats:
			if r.Dispatch != 1 || r.Delivery != 1 || r.Agent != "a" || r.PID <= 0 {
				t.Fatalf("a beat %+v, want dispatch 1, delivery 1, agent a, the step's pid", r)
			}
			if n := len(got); n > 0 && r.CPUMillis < got[n-1].CPUMillis {
				t.Fatalf("the step's CPU time went back: %d ms, then %d ms", got[n-1].CPUMillis, r.CPUMillis)
			} else if n > 0 && r.CPUMillis > got[n-1].CPUMillis {
				moved++
			}
			got = append(got, r)
		case <-time.After(20 * time.Second):
			t.Fatalf("beats within 20s: %+v; want the CPU time of a computing step to move twice", got)
		}
	}
	if err := os.WriteFile(enough, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		end, err := c.Last(ctx, s.Key, steps.TypeEnd)
		if err == nil && end != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the step did not end within 20s")
		}
		time.Sleep(10 * time.Millisecond) // polling the hub; the deadline bounds it
	}
}
