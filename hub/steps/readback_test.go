package steps_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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

	s, trace := tracedStep(t, "said it", 3)
	relay := func(attempt, readBack int) (code int, out string, readBackOf int) {
		t.Helper()
		s.Attempt, s.ReadBack = attempt, readBack
		return relayStep(t, c, s)
	}
	runs := func() int { return strings.Count(trace(), "ran\n") }

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
	s, runs := tracedStep(t, "said it", 3)
	// What the stuck relay of attempt 1 left: its dispatch, the agent's
	// start, output and end, then the stop its SIGTERM asked for.
	store(t, c, s.Key, append(ranTo(1, 1, 3), steps.Record{Type: steps.TypeStop, Dispatch: 1})...)
	relay := func(attempt, readBack int) (code int, out string, readBackOf int) {
		t.Helper()
		s.Attempt, s.ReadBack = attempt, readBack
		return relayStep(t, c, s)
	}
	if code, out, d := relay(2, 1); code != 3 || out != "said it\n" || d != 1 {
		t.Errorf("attempt 2 reading back attempt 1: exit %d, output %q, read back dispatch %d; want 3, the step's line, dispatch 1", code, out, d)
	}
	if ran := runs(); ran != "" {
		t.Errorf("the step ran on reading back: %q", ran)
	}

	// Attempt 3's dispatch (2) is stopped before it ended: attempt 4
	// reading it back runs the step.
	store(t, c, s.Key,
		steps.Record{Type: steps.TypeDispatch, Dispatch: 2, Attempt: 3},
		steps.Record{Type: steps.TypeStart, Dispatch: 2, Delivery: 1, Agent: "a", PID: 1},
		steps.Record{Type: steps.TypeEnd, Dispatch: 2, Delivery: 1, Agent: "a", ExitCode: -1, Stopped: "cancelled"},
		steps.Record{Type: steps.TypeStop, Dispatch: 2})
	serveAgent(t, ac, 5*time.Second)
	if code, out, d := relay(4, 3); code != 3 || out != "said it\n" || d != 0 {
		t.Errorf("attempt 4 after a stopped attempt 3: exit %d, output %q, read back %d; want the step run (3, its line, 0)", code, out, d)
	}
	if ran := runs(); ran != "ran\n" {
		t.Errorf("the step's runs: %q, want one", ran)
	}
}

// TestStuckFollowersStepIsReadBack: attempt 2's relay followed the
// dispatch attempt 1 offered (attempt 1's relay died with its
// controller), and was stopped as stale after the step had run to its
// end: the dispatch names attempt 1, is still open, its stop on record.
// Attempt 3, reading attempt 2 back, prints the step's end again and
// does not run it.
func TestStuckFollowersStepIsReadBack(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c := dial()
	s, runs := tracedStep(t, "", 0)
	s.Attempt, s.ReadBack = 3, 2
	store(t, c, s.Key, append(ranTo(1, 1, 0), steps.Record{Type: steps.TypeStop, Dispatch: 1})...)
	if code, out, read := relayStep(t, c, s); code != 0 || out != "said it\n" || read != 1 {
		t.Errorf("the relay of attempt 3: exit %d, output %q, read back dispatch %d; want 0, the step's line, dispatch 1", code, out, read)
	}
	if ran := runs(); ran != "" {
		t.Errorf("the step ran: %q", ran)
	}
}

// TestPredecessorsDispatchOfTheSameAttemptIsReadBack: a controller that
// died (or was deposed) after offering attempt 2 of a step but before
// recording it, its attempt 1 on record, leaves a dispatch its
// successor has no record of. The successor numbers its next attempt 2
// as well (attempt numbers continue across controllers), and its relay
// reads that dispatch back, since it ran to its end, instead of running
// the step again; the controller's offer ahead offers nothing. Attempt
// 3, with attempt 2's end on record, runs the step afresh.
func TestPredecessorsDispatchOfTheSameAttemptIsReadBack(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	s, runs := tracedStep(t, "", 0)
	s.Attempt = 2
	// Attempt 1: recorded, failed. Attempt 2: offered and run by the
	// predecessor, never recorded.
	store(t, c, s.Key, ranTo(1, 1, 1)...)
	store(t, c, s.Key, steps.Record{Type: steps.TypeClosed, Dispatch: 1, Attempt: 1, Ran: true})
	store(t, c, s.Key, append(ranTo(2, 2, 0), steps.Record{Type: steps.TypeClosed, Dispatch: 2, Attempt: 2, Ran: true})...)
	if offered, err := c.OfferAhead(context.Background(), s); err != nil || offered {
		t.Errorf("offered ahead: %v, %v; want nothing offered", offered, err)
	}
	if code, out, read := relayStep(t, c, s); code != 0 || out != "said it\n" || read != 2 {
		t.Errorf("the relay of attempt 2: exit %d, output %q, read back dispatch %d; want 0, the step's line, dispatch 2", code, out, read)
	}
	if ran := runs(); ran != "" {
		t.Errorf("the step ran: %q", ran)
	}
	serveAgent(t, ac, 5*time.Second)
	s.Attempt = 3
	if code, out, read := relayStep(t, c, s); code != 0 || out != "" || read != 0 {
		t.Errorf("the relay of attempt 3: exit %d, output %q, read back dispatch %d; want the step run (0, nothing, 0)", code, out, read)
	}
	if ran := runs(); ran != "ran\n" {
		t.Errorf("the step's runs: %q, want one (attempt 3)", ran)
	}
}

// TestSuccessorReadsBackADispatchItsAttemptFollowed: attempt 1's relay
// offered the step and died with its controller; attempt 2's relay (a
// successor's) followed that dispatch to its end and closed it, and its
// own controller died before recording the end. Attempt 3, reading back
// attempt 2, finds the step's end on record: the dispatch is read back,
// not run again, though attempt 1 offered it.
func TestSuccessorReadsBackADispatchItsAttemptFollowed(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	s, runs := tracedStep(t, "said it", 0)
	// What attempt 1's relay left: its dispatch record and the offer.
	store(t, c, s.Key, steps.Record{Type: steps.TypeDispatch, Dispatch: 1, Attempt: 1})
	s.Dispatch = 1
	if err := c.Offer(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	serveAgent(t, ac, 5*time.Second)
	s.Dispatch = 0
	s.Attempt = 2
	if code, out, d := relayStep(t, c, s); code != 0 || out != "said it\n" || d != 0 {
		t.Fatalf("attempt 2 following attempt 1's dispatch: exit %d, output %q, read back %d; want 0, the step's line, 0", code, out, d)
	}
	s.Attempt, s.ReadBack = 3, 2
	if code, out, d := relayStep(t, c, s); code != 0 || out != "said it\n" || d != 1 {
		t.Errorf("attempt 3 reading back attempt 2: exit %d, output %q, read back dispatch %d; want 0, the step's line, dispatch 1", code, out, d)
	}
	if ran := runs(); ran != "ran\n" {
		t.Errorf("the step's runs: %q, want one", ran)
	}
}

// TestReadBackTrustsTheClosedRecordOverTheLastEnd: a relay its
// controller stopped as stale before it had read anything published a
// cancel of its own (an end of no delivery, stopped) after the agent's
// end, then read that end and closed the dispatch with it. The next
// attempt, reading that attempt back, goes by the closed record (the
// step ran to its end), not by the last end on record (the cancel): it
// prints the step's end again and does not run it.
func TestReadBackTrustsTheClosedRecordOverTheLastEnd(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	s, runs := tracedStep(t, "", 0)
	s.Attempt = 1
	store(t, c, s.Key, append(ranTo(1, 1, 0), steps.Record{Type: steps.TypeEnd, Dispatch: 1, Stopped: "cancelled", ExitCode: -1})...)
	if code, out, _ := relayStep(t, c, s); code != 0 || out != "said it\n" {
		t.Fatalf("the relay of attempt 1: exit %d, output %q; want 0 and the step's line", code, out)
	}
	serveAgent(t, ac, 5*time.Second)
	s.Attempt, s.ReadBack = 2, 1
	if code, out, read := relayStep(t, c, s); code != 0 || out != "said it\n" || read != 1 {
		t.Errorf("the relay of attempt 2: exit %d, output %q, read back dispatch %d; want 0, the step's line, dispatch 1", code, out, read)
	}
	if ran := runs(); ran != "" {
		t.Errorf("the step ran: %q", ran)
	}
}

// tracedStep is step S1 of lane l, whose command prints line (if any),
// appends "ran" to a trace file and exits with code; runs reads the
// trace: what the step's runs left.
func tracedStep(t *testing.T, line string, code int) (s steps.Step, runs func() string) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	script := `echo ran >> "$0"; exit ` + strconv.Itoa(code)
	if line != "" {
		script = `echo "` + line + `"; ` + script
	}
	s = steps.Step{Key: steps.Key("run", "S1"), Lane: "l", Kind: "command", Argv: []string{"sh", "-c", script, trace}}
	return s, func() string {
		data, _ := os.ReadFile(trace)
		return string(data)
	}
}

// store makes the root's streams and stores records of the step key,
// as the agents and relays before would have.
func store(t *testing.T, c *steps.Conn, key string, records ...steps.Record) {
	t.Helper()
	ctx := context.Background()
	if err := c.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := c.Publish(ctx, key, r); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPredecessorsStoppedDispatchOfTheSameAttemptIsFollowed: a leader
// deposed after offering attempt 1 of a step, and never recording it,
// steps down: its relay asks the step to stop, but the step ends on its
// agent first, and the relay has not closed the dispatch yet when the
// successor's relay of attempt 1 looks. That relay follows the
// dispatch, stop or not, and its end decides: one that ran unstopped is
// the step's end (the step is not run again); one the stop ended fails
// the attempt, and the next attempt offers the step afresh.
func TestPredecessorsStoppedDispatchOfTheSameAttemptIsFollowed(t *testing.T) {
	dial, _ := steps.TestHub(t)
	c, ac := dial(), dial()
	s, runs := tracedStep(t, "", 0)
	s.Attempt = 1
	store(t, c, s.Key,
		steps.Record{Type: steps.TypeDispatch, Dispatch: 1, Attempt: 1},
		steps.Record{Type: steps.TypeStart, Dispatch: 1, Delivery: 1, Agent: "a", PID: 1},
		steps.Record{Type: steps.TypeLine, Dispatch: 1, Delivery: 1, Seq: 1, Lines: []steps.Line{{Stream: steps.StreamStdout, Text: "said it"}}},
		steps.Record{Type: steps.TypeStop, Dispatch: 1},
		steps.Record{Type: steps.TypeEnd, Dispatch: 1, Delivery: 1, Agent: "a"})
	serveAgent(t, ac, 5*time.Second)
	if code, out, _ := relayStep(t, c, s); code != 0 || out != "said it\n" {
		t.Errorf("the successor's relay of attempt 1: exit %d, output %q; want 0 and the step's line", code, out)
	}
	if ran := runs(); ran != "" {
		t.Errorf("the step ran again: %q", ran)
	}

	// Attempt 2's dispatch, offered by a leader that then stepped down
	// and whose stop ended it: the successor's attempt 2 fails with it,
	// and its attempt 3 runs the step.
	store(t, c, s.Key,
		steps.Record{Type: steps.TypeDispatch, Dispatch: 2, Attempt: 2},
		steps.Record{Type: steps.TypeStart, Dispatch: 2, Delivery: 1, Agent: "a", PID: 1},
		steps.Record{Type: steps.TypeStop, Dispatch: 2},
		steps.Record{Type: steps.TypeEnd, Dispatch: 2, Delivery: 1, Agent: "a", Signal: 15, Stopped: "cancelled"})
	s.Attempt = 2
	if code, _, _ := relayStep(t, c, s); code != 128+15 {
		t.Errorf("the successor's relay of attempt 2: exit %d, want 143 (the stop ended the step)", code)
	}
	s.Attempt = 3
	if code, _, _ := relayStep(t, c, s); code != 0 || runs() != "ran\n" {
		t.Errorf("attempt 3: exit %d, runs %q; want the step run once", code, runs())
	}
}

// ranTo is what dispatch d, offered by attempt, leaves when agent a ran
// its step to its end unstopped, printing "said it" and exiting with
// code.
func ranTo(d, attempt, code int) []steps.Record {
	return []steps.Record{
		{Type: steps.TypeDispatch, Dispatch: d, Attempt: attempt},
		{Type: steps.TypeStart, Dispatch: d, Delivery: 1, Agent: "a", PID: 1},
		{Type: steps.TypeLine, Dispatch: d, Delivery: 1, Seq: 1, Lines: []steps.Line{{Stream: steps.StreamStdout, Text: "said it"}}},
		{Type: steps.TypeEnd, Dispatch: d, Delivery: 1, Agent: "a", ExitCode: code},
	}
}
