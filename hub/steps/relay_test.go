package steps

import (
	"bytes"
	"testing"
)

// TestFollowerPrintsOnlyTheNewestDelivery: the relay prints the lines of
// the newest delivery an agent started; a late line or end of a lost
// delivery is not printed and does not end the step; a skip ends it
// with the newest end on record; the relay's own end (delivery 0) ends a
// step no agent started.
func TestFollowerPrintsOnlyTheNewestDelivery(t *testing.T) {
	type want struct {
		out     string
		ended   bool
		code    int
		started []int
	}
	for _, tc := range []struct {
		name    string
		records []Record
		want    want
	}{
		{"one delivery", []Record{
			{Type: TypeStart, Delivery: 1, Agent: "a"},
			{Type: TypeLine, Delivery: 1, Lines: []Line{{Stream: StreamStdout, Text: "hello"}}},
			{Type: TypeEnd, Delivery: 1, ExitCode: 0},
		}, want{out: "hello\n", ended: true, started: []int{1}}},
		{"a lost delivery's late records", []Record{
			{Type: TypeStart, Delivery: 1, Agent: "a"},
			{Type: TypeLine, Delivery: 1, Lines: []Line{{Stream: StreamStdout, Text: "first"}}},
			{Type: TypeStart, Delivery: 2, Agent: "b"},
			{Type: TypeLine, Delivery: 1, Lines: []Line{{Stream: StreamStdout, Text: "late"}}},
			{Type: TypeEnd, Delivery: 1, ExitCode: 3},
			{Type: TypeLine, Delivery: 2, Lines: []Line{{Stream: StreamStdout, Text: "second"}}},
		}, want{out: "first\nsecond\n", started: []int{1, 2}}},
		{"a lost delivery's start after the newer one", []Record{
			{Type: TypeStart, Delivery: 2, Agent: "b"},
			{Type: TypeStart, Delivery: 1, Agent: "a"},
			{Type: TypeLine, Delivery: 1, Lines: []Line{{Stream: StreamStdout, Text: "late"}}},
			{Type: TypeEnd, Delivery: 2, ExitCode: 5},
		}, want{ended: true, code: 5, started: []int{2}}},
		{"a skip takes the end on record", []Record{
			{Type: TypeStart, Delivery: 1, Agent: "a"},
			{Type: TypeStart, Delivery: 2, Agent: "b"},
			{Type: TypeEnd, Delivery: 1, Signal: 9},
			{Type: TypeSkip, Delivery: 3, Agent: "c"},
		}, want{ended: true, code: 137, started: []int{1, 2}}},
		{"the relay's own end", []Record{
			{Type: TypeEnd, Delivery: 0, ExitCode: -1, Stopped: "cancelled"},
		}, want{ended: true, code: 1}},
	} {
		var out bytes.Buffer
		var started []int
		f := follower{o: RelayIO{Stdout: &out, Stderr: &out, Announce: func(_ string, d int) { started = append(started, d) }}, ends: map[int]Record{}}
		var end Record
		ended := false
		for _, r := range tc.records {
			if e, ok := f.take(r); ok {
				end, ended = e, true
				break
			}
		}
		got := want{out: out.String(), ended: ended, started: started}
		if ended {
			got.code = ExitCode(end)
		}
		if got.out != tc.want.out || got.ended != tc.want.ended || got.code != tc.want.code || len(got.started) != len(tc.want.started) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestKeyIsOneSubjectToken: a step's key is a valid subject token for
// any run and step id, and differs between runs of the same step.
func TestKeyIsOneSubjectToken(t *testing.T) {
	a, b := Key("run/1 ü", "S1.x"), Key("run-2", "S1.x")
	for _, k := range []string{a, b, a + suffixEnd, a + suffixDispatch, a + suffixStop} {
		for _, c := range k {
			if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
				t.Fatalf("key %q has %q", k, c)
			}
		}
	}
	if a == b {
		t.Errorf("two runs' keys are the same: %s", a)
	}
}
