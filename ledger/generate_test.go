package ledger

import (
	"bytes"
	"testing"

	"github.com/daokit/daokit/ledger/ledgertest"
)

// TestGeneratedLedgerIsValid checks that the benchmark generator writes
// what the store would write: documents and lines that validate and
// re-encode to the same bytes.
func TestGeneratedLedgerIsValid(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = 3000
	st, err := ledgertest.Generate(root, ledgertest.Options{Events: n, Seed: 7})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if avg := st.EventsBytes / n; avg < 350 || avg > 600 {
		t.Errorf("average event line = %d bytes, want about 450", avg)
	}
	for _, name := range []string{PipelineFile, HeartbeatFile, LeasesFile} {
		data := readFile(t, statePath(root, name))
		got, verr := reencode(t, name, data)
		if verr != nil {
			t.Errorf("%s: Validate() = %v", name, verr)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: re-encoded bytes differ\ngot:\n%s\nwant:\n%s", name, got, data)
		}
	}
	data := readFile(t, statePath(root, EventsFile))
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) != n {
		t.Fatalf("got %d lines, want %d", len(lines), n)
	}
	types := map[string]int{}
	for i, line := range lines {
		e, err := ParseEvent(line)
		if err == nil {
			err = e.Validate()
		}
		if err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, line)
		}
		types[e.EventType]++
		if got, err := MarshalLine(e); err != nil || !bytes.Equal(got, line) {
			t.Fatalf("line %d re-encoded (%v)\ngot:  %s\nwant: %s", i+1, err, got, line)
		}
	}
	if len(types) != len(EventTypes()) {
		t.Errorf("event types used: %v, want all %d", types, len(EventTypes()))
	}
	again := t.TempDir()
	if _, err := ledgertest.Generate(again, ledgertest.Options{Events: n, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, statePath(again, EventsFile)), data) {
		t.Errorf("the same seed wrote different events")
	}
}
