package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// addSamples seeds f with the Python samples and files the store writes.
func addSamples(f *testing.F, name string, extra ...string) {
	if data, err := os.ReadFile(filepath.Join("testdata", "python", name)); err == nil {
		f.Add(data)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkFixedPoint parses data; if it parses it must encode, and if it also
// validates, encode → parse → encode must give the same bytes.
func checkFixedPoint[T any](t *testing.T, data []byte, parse func([]byte) (T, error),
	validate func(*T) error, encode func(any) ([]byte, error)) {
	v, err := parse(data)
	if err != nil {
		return
	}
	first, err := encode(v)
	if err != nil {
		t.Fatalf("encode of a parsed value failed: %v", err)
	}
	if validate(&v) != nil {
		return
	}
	v2, err := parse(first)
	if err != nil {
		t.Fatalf("re-parse failed: %v\n%s", err, first)
	}
	if err := validate(&v2); err != nil {
		t.Fatalf("re-parsed value does not validate: %v\n%s", err, first)
	}
	second, err := encode(v2)
	if err != nil {
		t.Fatalf("second encode failed: %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("not a fixed point:\nfirst:  %s\nsecond: %s", first, second)
	}
}

func FuzzParseEvent(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "python", EventsFile)); err == nil {
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":"1.0.0","event_id":"e","task_id":"t","run_id":"r","step_id":null,"event_type":"SYSTEM","severity":"INFO","timestamp":"2026-02-11T00:00:00Z","payload":{"a":[1,2.5e3,"\u00e9"]},"dedup_key":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFixedPoint(t, data, ParseEvent, (*Event).Validate, MarshalLine)
	})
}

func FuzzParsePipelineState(f *testing.F) {
	addSamples(f, PipelineFile, `{}`, `{"steps":[{"id":"S1"}],"role_lifecycle":{"a":"b"}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFixedPoint(t, data, ParsePipelineState, (*PipelineState).Validate, documentAsEncodingJSONWrites(t))
	})
}

func FuzzParseHeartbeatStatus(f *testing.F) {
	addSamples(f, HeartbeatFile, `{}`, `{"warning_after_seconds":1,"stale_after_seconds":1,"last_escalation_at":null}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFixedPoint(t, data, ParseHeartbeatStatus, (*HeartbeatStatus).Validate, documentAsEncodingJSONWrites(t))
	})
}

func FuzzParseLeases(f *testing.F) {
	addSamples(f, LeasesFile, `{}`, `{"leases":[{"pid":1}]}`,
		"{\"leases\":[{\"pid\":1,\"x\": [ 1 , {\"a\" : \"\u00e9\u2028<&>\\u2029\"}, [], {} ]}],\n \"y\":\t-0.5e10}")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFixedPoint(t, data, ParseLeases, (*Leases).Validate, documentAsEncodingJSONWrites(t))
	})
}

// documentAsEncodingJSONWrites returns MarshalDocument, checked against
// what encoding/json writes for the same value (its encoder, then
// json.Indent, then ensureASCII): the bytes of Python's json.dumps(indent=2)
// that the ledger wrote before MarshalDocument formatted in one pass.
func documentAsEncodingJSONWrites(t *testing.T) func(any) ([]byte, error) {
	return func(v any) ([]byte, error) {
		got, err := MarshalDocument(v)
		compact, werr := marshalValue(v)
		if (err == nil) != (werr == nil) {
			t.Fatalf("MarshalDocument error %v, encoding/json error %v", err, werr)
		}
		if err != nil {
			return nil, err
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact, "", "  "); err != nil {
			t.Fatalf("json.Indent: %v", err)
		}
		want.WriteByte('\n')
		if !bytes.Equal(got, ensureASCII(want.Bytes())) {
			t.Fatalf("MarshalDocument wrote\n%s\nencoding/json writes\n%s", got, ensureASCII(want.Bytes()))
		}
		return got, nil
	}
}

// referenceTail is the obvious whole-file implementation TailEvents must
// agree with.
func referenceTail(data []byte, n int) TailResult {
	end := bytes.LastIndexByte(data, '\n') + 1
	res := TailResult{Offset: int64(end), Torn: end < len(data)}
	if n <= 0 || end == 0 {
		return res
	}
	lines := bytes.Split(data[:end-1], []byte("\n"))
	for i := len(lines) - 1; i >= 0 && len(res.Events) < n; i-- {
		switch e, kind := parseLine(lines[i]); kind {
		case lineEvent:
			res.Events = append(res.Events, e)
		case lineBad:
			res.Skipped++
		}
	}
	slices.Reverse(res.Events)
	return res
}

func FuzzTailEvents(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "python", EventsFile)); err == nil {
		f.Add(data, uint8(2), uint8(7))
		f.Add(data[:len(data)-20], uint8(9), uint8(0))
	}
	f.Add([]byte("{}\n\n{\n{}"), uint8(3), uint8(1))
	f.Add([]byte(""), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, n, chunk uint8) {
		got, err := tailEvents(bytes.NewReader(data), int64(len(data)), int(n), int(chunk)+1)
		if err != nil {
			t.Fatalf("tailEvents: %v", err)
		}
		want := referenceTail(data, int(n))
		if got.Offset != want.Offset || got.Torn != want.Torn || got.Skipped != want.Skipped ||
			len(got.Events) != len(want.Events) || (len(got.Events) > 0 && !reflect.DeepEqual(got.Events, want.Events)) {
			t.Fatalf("tail(n=%d, chunk=%d) = %+v\nwant %+v", n, int(chunk)+1, got, want)
		}
	})
}

// FuzzFollower lets a log grow in pieces under a follower with a small
// read cap and checks that it reads what a whole-file parse reads.
func FuzzFollower(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "python", EventsFile)); err == nil {
		f.Add(data, uint8(13), uint8(40))
	}
	f.Add([]byte("{}\nx\n{}"), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, pieceArg, maxReadArg uint8) {
		// Partial lines are read again on every call, so tiny pieces on
		// a large input are quadratic; scaled steps keep the fuzzer fast
		// while 1-byte steps remain possible.
		piece, maxRead := int(pieceArg)*4+1, int(maxReadArg)*4+1
		fl := &Follower{maxRead: maxRead, maxLine: MaxReadLineBytes}
		var got Batch
		for k := 0; k < len(data); {
			k = min(len(data), k+piece)
			for {
				b, err := fl.readFrom(bytes.NewReader(data[:k]), int64(k), Batch{})
				if err != nil {
					t.Fatalf("readFrom: %v", err)
				}
				got.Events = append(got.Events, b.Events...)
				got.Skipped += b.Skipped
				if b.Reset {
					t.Fatalf("reset while the log only grew")
				}
				if !b.More {
					break
				}
			}
		}
		want := referenceTail(data, len(data)+1)
		if got.Skipped != want.Skipped || len(got.Events) != len(want.Events) ||
			(len(got.Events) > 0 && !reflect.DeepEqual(got.Events, want.Events)) {
			t.Fatalf("in %d-byte pieces, %d-byte reads: %d events %d skipped, want %d events %d skipped",
				piece, maxRead, len(got.Events), got.Skipped, len(want.Events), want.Skipped)
		}
		if fl.Offset() != want.Offset {
			t.Fatalf("Offset() = %d, want %d", fl.Offset(), want.Offset)
		}
	})
}

// FuzzMarshalValue checks the strings, ints and bools marshalValue writes
// itself against what encoding/json writes for them.
func FuzzMarshalValue(f *testing.F) {
	for _, s := range []string{"", "plain", `quote"`, `back\slash`, "tab\t", "<&>", "é", "\u2028", "\x7f", "\xff", "DK-C3F18778_20261125T235551Z"} {
		f.Add(s, int64(len(s)), len(s)%2 == 0)
	}
	f.Add("", int64(-1<<63), false)
	f.Fuzz(func(t *testing.T, s string, n int64, b bool) {
		for _, v := range []any{s, int(n), b} {
			got, err := marshalValue(v)
			if err != nil {
				t.Fatalf("marshalValue(%#v): %v", v, err)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, bytes.TrimRight(want.Bytes(), "\n")) {
				t.Fatalf("marshalValue(%#v) = %s, encoding/json writes %s", v, got, want.Bytes())
			}
		}
	})
}
