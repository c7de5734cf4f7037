package controller

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// replaySeed is a log of a short and a long instruction, a line of
// another kind and a torn last line.
func replaySeed() []byte {
	at := time.Date(2026, 2, 12, 9, 48, 0, 0, time.UTC)
	var buf []byte
	for _, text := range []string{"short", strings.Repeat("字", 200)} {
		e := ledger.NewEvent(at, "DK-1", "R-1", "S1", ledger.EventSystem, ledger.SeverityInfo, ledger.ObjectOf("operation", opInstruction, "text", text))
		line, err := ledger.MarshalLine(e)
		if err != nil {
			panic(err)
		}
		buf = append(buf, line...)
	}
	return append(buf, `{"event_type":"STEP_STARTED","event_id":"x"}`+"\n"+`not json`+"\n"+`{"torn":`...)
}

// FuzzReplayLines checks the index's replay against a plain reading of
// the log: every complete line no longer than the cap that names an
// operation the index folds and parses is folded, in order, whatever the
// buffer size; longer lines and a torn tail are not, and the offset ends
// after the last complete line.
func FuzzReplayLines(f *testing.F) {
	f.Add(replaySeed(), uint8(0), uint16(0))
	f.Add(replaySeed(), uint8(40), uint16(3000))
	f.Add([]byte("\n\n"), uint8(0), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, buf uint8, extra uint16) {
		bufSize := 16 + int(buf)
		limit := int64(bufSize) + int64(extra)
		var got []string
		n, off, err := replayLines(bytes.NewReader(data), 0, func(e *ledger.Event) { got = append(got, e.EventID) }, bufSize, limit)
		if err != nil {
			t.Fatal(err)
		}
		end := bytes.LastIndexByte(data, '\n') + 1
		var want []string
		for _, line := range bytes.SplitAfter(data[:end], []byte{'\n'}) {
			if len(line) == 0 || int64(len(line)) > limit {
				continue
			}
			if !slices.ContainsFunc(indexMarkers, func(m []byte) bool { return bytes.Contains(line, m) }) {
				continue
			}
			if e, err := ledger.ParseEvent(bytes.TrimSpace(line)); err == nil {
				want = append(want, e.EventID)
			}
		}
		if n != len(want) || !slices.Equal(got, want) || off != int64(end) {
			t.Fatalf("replay folded %d %v to offset %d; want %d %v to %d", n, got, off, len(want), want, end)
		}
	})
}
