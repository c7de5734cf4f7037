package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/naming"
	"github.com/daokit/daokit/hub/steps"
	"github.com/nats-io/nats.go"
)

// TestHubRestartDoesNotHandARunningStepToASecondAgent: a SIGKILLed hub
// comes back with its deliveries' last renewals rounded down to the
// second (JetStream stores them so, and lazily), so it may hand a step
// that an agent runs and renews to the other agent at once. That agent
// must not run it beside the first: it asks who holds the step, the
// first answers, and it waits; the step runs once, and its relay ends
// with it. The hub is SIGKILLed (and started again on its folder) until
// it has handed the step on, so the test proves the case it is about.
func TestHubRestartDoesNotHandARunningStepToASecondAgent(t *testing.T) {
	dir := t.TempDir()
	h := startHubProc(t, dir, "127.0.0.1:0")
	listen := strings.TrimPrefix(h.url, "nats://")
	creds := filepath.Join(dir, "admin.nk")
	startAgent(t, h.url, creds, "host-a")
	startAgent(t, h.url, creds, "host-b")

	work := t.TempDir()
	trace, release := filepath.Join(work, "trace"), filepath.Join(work, "release")
	s := steps.Step{Key: steps.Key("restart-run", "S1"), TaskID: "T-1", RunID: "restart-run", StepID: "S1", Lane: "remote", Attempt: 1,
		Kind: "command", Argv: []string{"sh", "-c", `echo "start $DAOKIT_AGENT" >> "$0"; while [ ! -e "$1" ]; do sleep 0.05; done; echo "done $DAOKIT_AGENT" >> "$0"`, trace, release}}
	stdin, _ := json.Marshal(s)
	relay := exec.Command(daokit, "worker", "hub", "--hub", h.url, "--root-id", hubAgentRootID, "--credentials", creds)
	relay.Stdin = bytes.NewReader(stdin)
	var relayOut, relayErr bytes.Buffer
	relay.Stdout, relay.Stderr = &relayOut, &relayErr
	relay.Env = append(os.Environ(), "DAOKIT_LANG=en")
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	relayDone := make(chan error, 1)
	go func() { relayDone <- relay.Wait() }()
	t.Cleanup(func() {
		_ = relay.Process.Kill()
		<-relayDone
	})

	// Who asks about the step: an agent handed it again.
	rt, _ := naming.ForRoot(hubAgentRootID)
	conn, err := steps.DialWait(context.Background(), steps.DialOptions{URL: h.url, Creds: creds, Name: "test"}, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var asks atomic.Int64
	sub, err := conn.NC.Subscribe(rt.LiveSubject(s.Key), func(m *nats.Msg) {
		var r steps.Record
		if json.Unmarshal(m.Data, &r) == nil && r.Type == steps.TypeAsk {
			asks.Add(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	starts := func() int {
		data, _ := os.ReadFile(trace)
		return strings.Count(string(data), "start ")
	}
	waitFor(t, 30*time.Second, "the step started on an agent", func() bool { return starts() == 1 })

	kills := 0
	for ; kills < 30 && asks.Load() == 0 && starts() < 2; kills++ {
		h.kill(t)
		h = startHubProc(t, dir, listen)
		// The agents find the hub again and renew (AckWait 1s): a
		// step handed on at the restart is handed on within it.
		deadline := time.Now().Add(1500 * time.Millisecond)
		for time.Now().Before(deadline) && asks.Load() == 0 && starts() < 2 {
			time.Sleep(10 * time.Millisecond) // polling the condition; the deadline bounds it
		}
	}
	if asks.Load() == 0 && starts() < 2 {
		t.Fatalf("the hub never handed the running step on in %d SIGKILLs", kills)
	}
	// Another AckWait and more for a second agent to start it, were it
	// going to.
	deadline := time.Now().Add(2500 * time.Millisecond)
	for time.Now().Before(deadline) && starts() < 2 {
		time.Sleep(10 * time.Millisecond) // polling the condition; the deadline bounds it
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-relayDone:
		relayDone <- err
		if err != nil {
			t.Fatalf("the relay: %v\n%s", err, relayErr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the relay did not end within 60s of the step's release:\n%s", relayErr.String())
	}
	data, _ := os.ReadFile(trace)
	if got := strings.Fields(string(data)); len(got) != 4 || got[0] != "start" || got[2] != "done" || got[1] != got[3] {
		t.Errorf("the step's trace %q, want one start and one done by one agent", data)
	}
	t.Logf("%d hub SIGKILLs until the hub handed the running step on; %d asks of the agent handed it; trace %q; relay: %s",
		kills, asks.Load(), data, strings.TrimSpace(relayErr.String()))
}
