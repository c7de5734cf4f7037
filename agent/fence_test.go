package agent

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/steps"
)

// blackhole is a TCP proxy to a hub that can be cut: from then on it
// swallows what either side sends, closing nothing, as a partition
// does (a cut-off client notices nothing but silence).
type blackhole struct {
	ln  net.Listener
	cut atomic.Bool
	wg  sync.WaitGroup
}

func newBlackhole(t *testing.T, target string) *blackhole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{ln: ln}
	var conns sync.Map
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			conns.Store(c, s)
			b.wg.Add(2)
			go b.pipe(c, s)
			go b.pipe(s, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		conns.Range(func(k, v any) bool { k.(net.Conn).Close(); v.(net.Conn).Close(); return true })
		b.wg.Wait()
	})
	return b
}

// pipe copies from to to until either closes, dropping everything once
// cut.
func (b *blackhole) pipe(from, to net.Conn) {
	defer b.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 && !b.cut.Load() {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				to.Close()
			}
			return
		}
	}
}

// TestCutOffAgentKillsItsStepBeforeTheHubHandsItOn: an agent whose link
// to the hub goes silent mid-step (no error, no close) cannot renew the
// step, so it kills the step's process before AckWait passes; the hub
// then hands the step to another agent, and by the moment that agent
// starts it the first process is gone: never two at once.
func TestCutOffAgentKillsItsStepBeforeTheHubHandsItOn(t *testing.T) {
	c, o := startHub(t)
	bh := newBlackhole(t, strings.TrimPrefix(o.URL, "nats://"))
	pids := t.TempDir()
	type start struct {
		delivery int
		at       time.Time
	}
	starts := make(chan start, 4)
	onStart := func(_ steps.Step, d int) { starts <- start{d, time.Now()} }
	const ackWait = time.Second
	cut := o
	cut.URL, cut.Ping = "nats://"+bh.ln.Addr().String(), ackWait/4
	runAgentAs(t, cut, "cut", ackWait, onStart)

	ctx := context.Background()
	s := steps.Step{Key: steps.Key("run", "S1"), Dispatch: 1, Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", "echo $$ > " + filepath.Join(pids, "pid-$DAOKIT_AGENT") + "; exec sleep 60"}}
	if err := c.Publish(ctx, s.Key, steps.Record{Type: steps.TypeDispatch, Dispatch: 1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Offer(ctx, s); err != nil {
		t.Fatal(err)
	}
	first := <-starts
	pid := waitPID(t, filepath.Join(pids, "pid-cut"))
	bh.cut.Store(true)
	cutAt := time.Now()
	runAgentAs(t, o, "other", ackWait, onStart)
	var second start
	select {
	case second = <-starts:
	case <-time.After(30 * time.Second):
		t.Fatal("the step was not handed to the other agent within 30s")
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(stat), ") Z ") {
		t.Fatalf("the cut-off agent's step (pid %d) still runs %v after the cut, when the other agent starts it: %s", pid, second.at.Sub(cutAt), stat)
	}
	if first.delivery != 1 || second.delivery != 2 {
		t.Errorf("deliveries %d then %d, want 1 then 2", first.delivery, second.delivery)
	}
	t.Logf("handed on %v after the cut (AckWait %v)", second.at.Sub(cutAt).Round(time.Millisecond), ackWait)
}

// runAgentAs serves lane "l" as name on its own connection until the
// test ends.
func runAgentAs(t testing.TB, o steps.DialOptions, name string, ackWait time.Duration, started func(steps.Step, int)) {
	t.Helper()
	c, err := steps.DialWait(context.Background(), o, mustRoot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Run(ctx, c, Options{Name: name, Lanes: []string{"l"}, WorkDir: t.TempDir(), AckWait: ackWait, Started: started})
	}()
	t.Cleanup(func() { cancel(); c.Close(); <-done })
}

// waitPID waits for a step to write its pid into file.
func waitPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(file)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s within 20s", file)
		}
		time.Sleep(10 * time.Millisecond) // polling a file; the condition decides
	}
}
