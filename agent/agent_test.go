package agent

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/daokit/daokit/hub"
	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
)

// startHub runs a hub in the test's process (loopback, its generated
// key) and connects to root "t" on it.
func startHub(t testing.TB) (*steps.Conn, steps.DialOptions) {
	t.Helper()
	h, err := hub.Start(hub.Options{Listen: "127.0.0.1:0", DataDir: filepath.Join(t.TempDir(), "hub")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	root, _ := naming.ForRoot("t")
	o := steps.DialOptions{URL: h.ClientURL(), Creds: h.CredentialsFile(), Name: "test"}
	c, err := steps.DialWait(context.Background(), o, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.EnsureStreams(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, o
}

func mustRoot() naming.Root { r, _ := naming.ForRoot("t"); return r }

// BenchmarkDispatch measures how long a step takes from the hub's
// acknowledgement of its offer to the moment the agent starts its
// process (the process's own start excluded), on loopback, one step at a
// time, and reports the median and the 90th percentile. The issue asks
// for a median within 10 ms.
func BenchmarkDispatch(b *testing.B) {
	c, o := startHub(b)
	var mu sync.Mutex
	at := map[string]time.Time{}
	startedCh := make(chan struct{}, 1)
	runAgentAs(b, o, "bench", 5*time.Second, func(s steps.Step, _ int) {
		mu.Lock()
		at[s.Key] = time.Now()
		mu.Unlock()
		startedCh <- struct{}{}
	})
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		s := steps.Step{Key: steps.Key("bench", strconv.Itoa(i)), Dispatch: 1, Lane: "l", Kind: "command", Argv: []string{"true"}}
		if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeDispatch, Dispatch: 1}); err != nil {
			b.Fatal(err)
		}
		if err := c.Offer(ctx, s); err != nil {
			b.Fatal(err)
		}
		acked := time.Now()
		select {
		case <-startedCh:
		case <-time.After(30 * time.Second):
			b.Fatal("the step did not start within 30s")
		}
		mu.Lock()
		lat = append(lat, at[s.Key].Sub(acked))
		mu.Unlock()
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-p90")
}
