package steps_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/steps"
)

// pulseWait bounds every wait of the pulse tests.
const pulseWait = 20 * time.Second

// The thresholds the pulse tests' relays are given: a waiting line every
// 100 ms, a computing one after 500 ms without output (the agents beat
// every 250 ms).
const (
	testWarningAfter = 200 * time.Millisecond
	testStaleAfter   = time.Second
)

// computed is one Computing line of a relay.
type computed struct {
	agent     string
	cpu, over time.Duration
}

// pulsedRelay runs a relay of s with the test thresholds in the
// background: its Waiting and Computing lines arrive on the channels
// returned, its exit code on the last once it ended; closing stop asks
// for the step's end.
func pulsedRelay(t *testing.T, c *steps.Conn, s steps.Step, stop chan struct{}) (<-chan time.Duration, <-chan computed, <-chan int) {
	t.Helper()
	waiting, computing, code := make(chan time.Duration, 1000), make(chan computed, 1000), make(chan int, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*pulseWait)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var out bytes.Buffer
		n, err := steps.Relay(ctx, c, s, steps.RelayIO{Stdout: &out, Stderr: &out, Stop: stop,
			WarningAfter: testWarningAfter, StaleAfter: testStaleAfter,
			Waiting: func(lane string, queued time.Duration) {
				if lane != s.Lane {
					t.Errorf("a waiting line for lane %q, want %q", lane, s.Lane)
				}
				waiting <- queued
			},
			Computing: func(agent string, cpu, over time.Duration) { computing <- computed{agent, cpu, over} },
		})
		if err != nil && ctx.Err() == nil {
			t.Errorf("relay: %v", err)
		}
		code <- n
	}()
	t.Cleanup(func() { cancel(); <-done })
	return waiting, computing, code
}

// TestQueuedStepsRelaySaysItWaits: a step no agent takes (every agent
// busy, none here) keeps its relay speaking, every half of
// warning_after, with how long it has waited: its controller does not
// take it for silent. It prints no computing line; stopped, it ends.
func TestQueuedStepsRelaySaysItWaits(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c := dial()
	stop := make(chan struct{})
	s := steps.Step{Key: steps.Key("run", "queued"), Lane: "l", Kind: "command", Argv: []string{"true"}}
	waiting, computing, code := pulsedRelay(t, c, s, stop)
	var last time.Duration
	for i := range 3 {
		select {
		case q := <-waiting:
			if q <= last {
				t.Errorf("waiting line %d says queued %v, after %v", i+1, q, last)
			}
			last = q
		case <-time.After(pulseWait):
			t.Fatalf("%d waiting lines within %v, want 3 (one every %v)", i, pulseWait, testWarningAfter/2)
		}
	}
	close(stop)
	select {
	case <-code:
	case <-time.After(pulseWait):
		t.Fatal("the stopped relay did not end")
	}
	if len(computing) > 0 {
		t.Errorf("a queued step's relay said it computes: %+v", <-computing)
	}
}

// TestComputingStepsRelaySaysSo: a step that computes on its agent
// without printing keeps its relay speaking, from the CPU time in the
// agent's beats, naming the agent: its controller sees a busy step, not
// a hung one (the relay itself idles).
func TestComputingStepsRelaySaysSo(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	serveAgent(t, ac, time.Second)
	enough := filepath.Join(t.TempDir(), "enough")
	s := steps.Step{Key: steps.Key("run", "busy"), Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", `while [ ! -e "$0" ]; do :; done`, enough}}
	_, computing, code := pulsedRelay(t, c, s, make(chan struct{}))
	for i := range 2 {
		select {
		case got := <-computing:
			if got.agent != "a" || got.cpu <= 0 || got.over <= 0 {
				t.Errorf("computing line %d: %+v, want agent a, some CPU time over some while", i+1, got)
			}
		case <-time.After(pulseWait):
			t.Fatalf("%d computing lines within %v, want 2", i, pulseWait)
		}
	}
	if err := os.WriteFile(enough, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	endsZero(t, code)
}

// TestIdleStepsRelayStaysSilent: a step that waits on nothing without
// printing (its beats come, its CPU time does not move) gets no
// computing line: its relay's controller judges it stale, as it would a
// hung local worker.
func TestIdleStepsRelayStaysSilent(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	serveAgent(t, ac, time.Second)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	s := steps.Step{Key: steps.Key("run", "idle"), Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", `read x < "$0"`, fifo}}
	// The beats are counted: the relay had as many windows to speak in.
	beats := make(chan steps.Record, 1000)
	sub, err := c.ListenBeats(s.Key, 1, beats)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	_, computing, code := pulsedRelay(t, c, s, make(chan struct{}))
	// 12 beats, 250 ms apart: three seconds, six halves of stale_after.
	// The first beat may come before the shell blocked; from the second
	// on the CPU time stands.
	var second steps.Record
	for i := range 12 {
		select {
		case r := <-beats:
			if i == 1 {
				second = r
			} else if i > 1 && r.CPUMillis != second.CPUMillis {
				t.Fatalf("the idle step's CPU time moved: %d ms, then %d ms", second.CPUMillis, r.CPUMillis)
			}
		case <-time.After(pulseWait):
			t.Fatalf("%d beats within %v, want 12", i, pulseWait)
		}
	}
	if len(computing) > 0 {
		t.Errorf("the relay of an idle step said it computes: %+v", <-computing)
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endsZero(t, code)
}

// endsZero waits for a pulsed relay's exit code and wants 0.
func endsZero(t *testing.T, code <-chan int) {
	t.Helper()
	select {
	case n := <-code:
		if n != 0 {
			t.Errorf("the step ended %d, want 0", n)
		}
	case <-time.After(pulseWait):
		t.Fatal("the step did not end")
	}
}
