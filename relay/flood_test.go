package relay

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/daokit/daokit/relay/relaytest/latency"
)

// flood notifies worker output lines until stop is closed, perMs lines a
// millisecond on average (0: as fast as it can), and reports how many it
// sent and in how long.
func flood(s *Server, stop <-chan struct{}, perMs int) <-chan floodResult {
	done := make(chan floodResult, 1)
	go func() {
		start := time.Now()
		n := 0
		defer func() { done <- floodResult{n, time.Since(start)} }()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			due := n + 64
			if perMs > 0 {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				// Catch up on ticks the loaded machine skipped, a little:
				// a worker's pipe holds only so much, and a producer that
				// never rests would starve everyone else of the CPU.
				due = min(int(time.Since(start).Milliseconds())*perMs, n+4*perMs)
			} else {
				select {
				case <-stop:
					return
				default:
				}
			}
			for ; n < due; n++ {
				_ = s.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{RunID: "R", Line: "output line " + strconv.Itoa(n)}})
			}
			// A worker's pipe delivers in bursts; let others run between.
			runtime.Gosched()
		}
	}()
	return done
}

type floodResult struct {
	notices int
	took    time.Duration
}

func (r floodResult) perSecond() float64 { return float64(r.notices) / r.took.Seconds() }

func TestNoticeFloodIsBoundedForSlowReader(t *testing.T) {
	t.Parallel()
	const queue, total = 64, 20000
	ts := startServer(t, newFakeHandler(), ServerConfig{NoticeQueue: queue, WriteTimeout: waitTimeout})
	r := dialRaw(t, ts.path)
	r.send(`{"v":1,"id":"o","type":"observe","action":"observe"}`)
	if e := r.next(); e.Type != TypeReply {
		t.Fatalf("got %s, want the observe reply", e.Type)
	}
	// r reads nothing from here on, as a suspended window would.
	for i := range total {
		if err := ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.Notify(Notice{Kind: NoticeRoute, Route: &Route{TaskID: "final"}}); err != nil {
		t.Fatal(err)
	}
	st := ts.Stats()
	if st.PeakQueued > queue || st.Dropped == 0 {
		t.Fatalf("stats %+v: want at most %d queued and some dropped", st, queue)
	}

	// Now read it all: every line is delivered, in order, or counted.
	delivered, dropped, last := 0, 0, -1
	for {
		e := r.next()
		var n Notice
		if err := e.DecodeBody(&n); err != nil || e.Type != TypeNotice {
			t.Fatalf("got %s %v, want a notice", e.Type, err)
		}
		switch n.Kind {
		case NoticeWorkerOutput:
			i, _ := strconv.Atoi(n.Output.Line)
			if i <= last {
				t.Fatalf("line %d after line %d", i, last)
			}
			last = i
			delivered++
		case NoticeDropped:
			dropped += n.Dropped
		case NoticeRoute:
			if delivered+dropped != total {
				t.Errorf("delivered %d + dropped %d = %d, want %d", delivered, dropped, delivered+dropped, total)
			}
			if uint64(dropped) != st.Dropped {
				t.Errorf("reader counted %d dropped, server %d", dropped, st.Dropped)
			}
			t.Logf("%d delivered, %d dropped, peak queue %d", delivered, dropped, st.PeakQueued)
			return
		}
	}
}

// TestAcksDoNotStarveUnderFlood is not parallel: with two cores, another
// test's busy loop beside the flood would measure the Go scheduler, not the
// relay.
func TestAcksDoNotStarveUnderFlood(t *testing.T) {
	h := newFakeHandler()
	ts := startServer(t, h, ServerConfig{})
	cfg := fastClient(ts.path)
	cfg.NoticeQueue = 16
	c := dialTest(t, ts.path, cfg)
	// c observes and never reads its notices; another observer never reads
	// its socket. Neither may hold up c's acks.
	if _, err := c.Observe(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	slow := dialRaw(t, ts.path)
	slow.send(`{"v":1,"id":"o","type":"observe","action":"observe"}`)
	waitFor(t, "both observers", func() bool { return ts.Stats().Observers == 2 })

	// A heavy but possible flood: a few very chatty workers. The unpaced
	// flood, which saturates the machine, is BenchmarkAckUnderFlood's.
	stop := make(chan struct{})
	sent := flood(ts.Server, stop, 20)
	var lat []time.Duration
	for i := range 300 {
		start := time.Now()
		if _, err := c.Forward(testCtx(t), fmt.Sprint("under flood ", i)); err != nil {
			close(stop)
			t.Fatalf("Forward %d: %v", i, err)
		}
		lat = append(lat, time.Since(start))
	}
	// However fast the acks were, c gets more notices than it can keep.
	for i := range 1000 {
		_ = ts.Notify(Notice{Kind: NoticeWorkerOutput, Output: &OutputLine{Line: fmt.Sprint("burst ", i)}})
	}
	close(stop)
	n := (<-sent).notices
	sum := latency.Summarize(lat)
	st := ts.Stats()
	t.Logf("acks under a flood of %d notices: %+v; server stats %+v", n, sum, st)
	// Every ack arrived, which is what starving would prevent. How fast
	// is the benchmarks' business (BenchmarkAckUnderFlood): wall-clock
	// bounds on two cores shared with other test binaries only flake.
	if st.PeakQueued > DefaultServerConfig().NoticeQueue {
		t.Errorf("peak queue %d over the cap %d", st.PeakQueued, DefaultServerConfig().NoticeQueue)
	}

	// c's own queue overflowed too, and says so.
	var seen []NoticeKind
	timeout := time.After(waitTimeout)
	for {
		select {
		case note := <-c.Notices():
			if note.Kind == NoticeDropped {
				return
			}
			seen = append(seen, note.Kind)
		case <-timeout:
			t.Fatalf("no dropped notice on the client after %d notices of kinds %v", len(seen), slices.Compact(seen))
		}
	}
}
