package steps_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/hub/steps"
)

// TestSuccessorReadsBackAnEndedDispatch: a controller's relay ran a step
// to its end through an agent and closed its dispatch, but the
// controller never recorded the end (paused past its lease, or its log
// on another host). Its successor's relay, told to read that attempt
// back, prints the step's output and end again from the hub and offers
// nothing: the step ran once. A later attempt (a step run again on
// purpose) still runs it afresh.
func TestSuccessorReadsBackAnEndedDispatch(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	serveAgent(t, ac, 5*time.Second)

	trace := filepath.Join(t.TempDir(), "trace")
	s := steps.Step{Key: steps.Key("run", "S1"), Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", `echo "said it"; echo ran >> "$0"; exit 3`, trace}}
	relay := func(attempt, readBack int) (code int, out string, readBackOf int) {
		t.Helper()
		s.Attempt, s.ReadBack = attempt, readBack
		return relayStep(t, c, s)
	}
	runs := func() int {
		data, _ := os.ReadFile(trace)
		return strings.Count(string(data), "ran\n")
	}

	if code, out, _ := relay(1, 0); code != 3 || out != "said it\n" || runs() != 1 {
		t.Fatalf("first relay: exit %d, output %q, %d runs; want 3, the step's line, 1", code, out, runs())
	}
	// The leader, resumed and deposed, stops its relay just as the step
	// ended: a stop after the end does not undo the step.
	if err := c.Publish(context.Background(), s.Key, steps.Record{Type: steps.TypeStop, Dispatch: 1}); err != nil {
		t.Fatal(err)
	}
	code, out, d := relay(2, 1)
	if code != 3 || out != "said it\n" || d != 1 {
		t.Errorf("the successor's relay: exit %d, output %q, read back dispatch %d; want 3, the step's line, dispatch 1", code, out, d)
	}
	if n := runs(); n != 1 {
		t.Errorf("the step ran %d times after its successor's relay, want once (read back)", n)
	}
	if code, _, d := relay(3, 0); code != 3 || d != 0 || runs() != 2 {
		t.Errorf("a later attempt: exit %d, read back %d, %d runs; want it run afresh (3, 0, 2)", code, d, runs())
	}
}

// TestStuckRelaysStepIsReadBackUnlessItsStopEndedIt: a relay its
// controller stopped as stale after the step had run to its end on its
// agent (the relay stuck after the end, its dispatch never closed, its
// stop on record) leaves a step the next attempt's relay reads back:
// printed again, not run again. A step the stop itself ended runs again.
func TestStuckRelaysStepIsReadBackUnlessItsStopEndedIt(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	ctx := context.Background()
	trace := filepath.Join(t.TempDir(), "trace")
	s := steps.Step{Key: steps.Key("run", "S1"), Lane: "l", Kind: "command",
		Argv: []string{"sh", "-c", `echo "said it"; echo ran >> "$0"; exit 3`, trace}}
	if err := c.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	// What the stuck relay of attempt 1 left: its dispatch, the agent's
	// start, output and end, then the stop its SIGTERM asked for.
	for _, r := range []steps.Record{
		{Type: steps.TypeDispatch, Dispatch: 1, Attempt: 1},
		{Type: steps.TypeStart, Dispatch: 1, Delivery: 1, Agent: "a", PID: 1},
		{Type: steps.TypeLine, Dispatch: 1, Delivery: 1, Seq: 1, Lines: []steps.Line{{Stream: steps.StreamStdout, Text: "said it"}}},
		{Type: steps.TypeEnd, Dispatch: 1, Delivery: 1, Agent: "a", ExitCode: 3},
		{Type: steps.TypeStop, Dispatch: 1},
	} {
		if err := c.Publish(ctx, s.Key, r); err != nil {
			t.Fatal(err)
		}
	}
	relay := func(attempt, readBack int) (code int, out string, readBackOf int) {
		t.Helper()
		s.Attempt, s.ReadBack = attempt, readBack
		return relayStep(t, c, s)
	}
	if code, out, d := relay(2, 1); code != 3 || out != "said it\n" || d != 1 {
		t.Errorf("attempt 2 reading back attempt 1: exit %d, output %q, read back dispatch %d; want 3, the step's line, dispatch 1", code, out, d)
	}
	if data, _ := os.ReadFile(trace); len(data) != 0 {
		t.Errorf("the step ran on reading back: %q", data)
	}

	// Attempt 3's dispatch (2) is stopped before it ended: attempt 4
	// reading it back runs the step.
	for _, r := range []steps.Record{
		{Type: steps.TypeDispatch, Dispatch: 2, Attempt: 3},
		{Type: steps.TypeStart, Dispatch: 2, Delivery: 1, Agent: "a", PID: 1},
		{Type: steps.TypeEnd, Dispatch: 2, Delivery: 1, Agent: "a", ExitCode: -1, Stopped: "cancelled"},
		{Type: steps.TypeStop, Dispatch: 2},
	} {
		if err := c.Publish(ctx, s.Key, r); err != nil {
			t.Fatal(err)
		}
	}
	serveAgent(t, ac, 5*time.Second)
	if code, out, d := relay(4, 3); code != 3 || out != "said it\n" || d != 0 {
		t.Errorf("attempt 4 after a stopped attempt 3: exit %d, output %q, read back %d; want the step run (3, its line, 0)", code, out, d)
	}
	if data, _ := os.ReadFile(trace); string(data) != "ran\n" {
		t.Errorf("the step's runs: %q, want one", data)
	}
}

// TestUnrecordedStepsEndedDispatchIsReadBack: a controller that died (or
// was deposed) after offering a step but before recording it leaves a
// dispatch its successor has no record of; the successor's relay for a
// run with no worker on record (Unrecorded) reads that dispatch back if
// it ran to its end, instead of running the step again.
func TestUnrecordedStepsEndedDispatchIsReadBack(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c := dial()
	ctx := context.Background()
	if err := c.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	s := steps.Step{Key: steps.Key("run", "S1"), Lane: "l", Kind: "command", Attempt: 1, Unrecorded: true,
		Argv: []string{"sh", "-c", `echo ran >> "$0"`, trace}}
	for _, r := range []steps.Record{
		{Type: steps.TypeDispatch, Dispatch: 1, Attempt: 1},
		{Type: steps.TypeStart, Dispatch: 1, Delivery: 1, Agent: "a", PID: 1},
		{Type: steps.TypeLine, Dispatch: 1, Delivery: 1, Seq: 1, Lines: []steps.Line{{Stream: steps.StreamStdout, Text: "said it"}}},
		{Type: steps.TypeEnd, Dispatch: 1, Delivery: 1, Agent: "a"},
		{Type: steps.TypeClosed, Dispatch: 1, Attempt: 1},
	} {
		if err := c.Publish(ctx, s.Key, r); err != nil {
			t.Fatal(err)
		}
	}
	// The controller's offer ahead finds nothing to offer.
	if offered, err := c.OfferAhead(ctx, s); err != nil || offered {
		t.Errorf("offered ahead: %v, %v; want nothing offered", offered, err)
	}
	if code, out, read := relayStep(t, c, s); code != 0 || out != "said it\n" || read != 1 {
		t.Errorf("the relay: exit %d, output %q, read back dispatch %d; want 0, the step's line, dispatch 1", code, out, read)
	}
	if data, _ := os.ReadFile(trace); len(data) != 0 {
		t.Errorf("the step ran: %q", data)
	}
}
