package steps

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestRelayEndsThoughRecordsFollowTheEnd: a dispatch read back holds
// records after its end (the skip of an agent handed it once more, a
// late end), all there at once. The relay prints the output of its
// deliveries and ends with the step's end, and returns: what follows the
// end must not hold it (a relay's context never ends on its own).
func TestRelayEndsThoughRecordsFollowTheEnd(t *testing.T) {
	dial, _ := testHub(t)
	c := dial()
	ctx := context.Background()
	if err := c.EnsureStreams(ctx); err != nil {
		t.Fatal(err)
	}
	k := Key("r", "S1")
	for _, r := range []Record{{Type: TypeDispatch, Dispatch: 1, Attempt: 1}, {Type: TypeStart, Dispatch: 1, Delivery: 1},
		{Type: TypeLine, Dispatch: 1, Delivery: 1, Seq: 1, Lines: []Line{{Text: "one"}}},
		{Type: TypeStart, Dispatch: 1, Delivery: 2}, {Type: TypeLine, Dispatch: 1, Delivery: 2, Seq: 1, Lines: []Line{{Text: "two"}}},
		{Type: TypeEnd, Dispatch: 1, Delivery: 2, ExitCode: 4}, {Type: TypeSkip, Dispatch: 1, Delivery: 3},
		{Type: TypeEnd, Dispatch: 1, Delivery: 1}, {Type: TypeClosed, Dispatch: 1, Attempt: 1, Ran: true}} {
		if err := c.Publish(ctx, k, r); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		code int
		err  error
	}
	var out, errOut bytes.Buffer
	done := make(chan result, 1)
	go func() {
		code, err := Relay(ctx, c, Step{Key: k, Lane: "l", Attempt: 2, ReadBack: 1}, RelayIO{Stdout: &out, Stderr: &errOut, Stop: make(chan struct{})})
		done <- result{code, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.code != 4 {
			t.Errorf("the relay returned %d, %v; want the end's exit code 4", r.code, r.err)
		}
		if got := out.String(); got != "one\ntwo\n" {
			t.Errorf("printed %q, want each delivery's line as it started", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not return within 10s of its step's end") // the goroutine ends with the test binary
	}
}
