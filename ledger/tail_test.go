package ledger

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTailEvents(t *testing.T) {
	t.Parallel()
	ten := testLines(t, 0, 10)
	torn := testLine(t, 10)[:30]
	bad := []byte("{not json}\n")
	tests := []struct {
		name    string
		content []byte
		n       int
		want    []string
		skipped int
		offset  int64
		torn    bool
	}{
		{"empty", nil, 5, nil, 0, 0, false},
		{"last three", ten, 3, seqRange(7, 10), 0, int64(len(ten)), false},
		{"n larger than the file", ten, 50, seqRange(0, 10), 0, int64(len(ten)), false},
		{"n zero", ten, 0, nil, 0, int64(len(ten)), false},
		{"torn last line ignored", append(slices.Clone(ten), torn...), 2, seqRange(8, 10), 0, int64(len(ten)), true},
		{"only a torn line", torn, 2, nil, 0, 0, true},
		{"invalid lines skipped and counted",
			concat(testLines(t, 0, 3), bad, testLines(t, 3, 5), bad, []byte("\n   \n"), testLines(t, 5, 6)),
			4, seqRange(2, 6), 2, -1, false},
		{"skips only what it examines", concat(bad, testLines(t, 0, 3)), 2, seqRange(1, 3), 0, -1, false},
		{"no trailing newline complete line", concat(testLines(t, 0, 2), bytes.TrimSuffix(testLine(t, 2), []byte("\n"))),
			5, seqRange(0, 2), 0, int64(len(testLines(t, 0, 2))), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), EventsFile)
			writeFile(t, path, tt.content)
			got, err := TailEvents(path, tt.n)
			if err != nil {
				t.Fatalf("TailEvents: %v", err)
			}
			if !slices.Equal(seqs(got.Events), tt.want) {
				t.Errorf("events = %v, want %v", seqs(got.Events), tt.want)
			}
			if got.Skipped != tt.skipped {
				t.Errorf("skipped = %d, want %d", got.Skipped, tt.skipped)
			}
			wantOffset := tt.offset
			if wantOffset < 0 {
				wantOffset = int64(len(tt.content))
			}
			if got.Offset != wantOffset || got.Torn != tt.torn {
				t.Errorf("offset, torn = %d, %v, want %d, %v", got.Offset, got.Torn, wantOffset, tt.torn)
			}
		})
	}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestTailEventsMissing(t *testing.T) {
	t.Parallel()
	_, err := TailEvents(filepath.Join(t.TempDir(), EventsFile), 5)
	var fe *FileError
	if !errors.Is(err, ErrMissing) || !errors.As(err, &fe) || fe.File != EventsFile {
		t.Errorf("TailEvents(missing) = %v, want a *FileError wrapping ErrMissing", err)
	}
	if _, err := TailEvents(t.TempDir(), 5); !errors.Is(err, ErrNotRegular) {
		t.Errorf("TailEvents(folder) = %v, want ErrNotRegular", err)
	}
}

// TestTailEventsChunkBoundaries runs the backward scan with tiny chunks so
// that lines straddle every possible boundary.
func TestTailEventsChunkBoundaries(t *testing.T) {
	t.Parallel()
	content := concat(testLines(t, 0, 5), []byte("garbage\n\n"), testLines(t, 5, 9), []byte(`{"torn":`))
	for chunk := 1; chunk <= 70; chunk++ {
		got, err := tailEvents(bytes.NewReader(content), int64(len(content)), 6, chunk)
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if want := seqRange(3, 9); !slices.Equal(seqs(got.Events), want) || got.Skipped != 1 {
			t.Fatalf("chunk %d: events %v skipped %d, want %v skipped 1", chunk, seqs(got.Events), got.Skipped, want)
		}
	}
}

func TestTailEventsSkipsOverlongLine(t *testing.T) {
	t.Parallel()
	const maxLine = 3 << 20
	long := []byte(`{"x":"` + strings.Repeat("y", maxLine) + `"}` + "\n")
	content := concat(testLines(t, 0, 2), long, testLines(t, 2, 3))
	got, err := tailWith(bytes.NewReader(content), int64(len(content)), 10, 1<<20, maxLine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := seqRange(0, 3); !slices.Equal(seqs(got.Events), want) || got.Skipped != 1 {
		t.Errorf("events %v skipped %d, want %v skipped 1", seqs(got.Events), got.Skipped, want)
	}
}

// TestTailMatching: the window counts lines, matching or not (blank lines
// aside); only the lines holding the needle are decoded and returned,
// and a bad one among them is counted.
func TestTailMatching(t *testing.T) {
	t.Parallel()
	twenty := testLines(t, 0, 20)
	bad := []byte("{not json seq:3\"}\n")
	tests := []struct {
		name    string
		content []byte
		n       int
		needle  string
		want    []string
		skipped int
	}{
		{"whole file, one match", twenty, 50, `seq:1"`, seqRange(1, 2), 0},
		{"the match is older than the window", twenty, 10, `seq:1"`, nil, 0},
		{"every line of the window matches", twenty, 4, `seq:1`, seqRange(16, 20), 0},
		{"blank lines are not counted", concat(testLines(t, 0, 3), []byte("\n\n\n"), testLines(t, 3, 4)), 2, `seq:2"`, seqRange(2, 3), 0},
		{"a bad matching line is skipped", concat(testLines(t, 0, 4), bad, testLines(t, 4, 5)), 3, `seq:3"`, seqRange(3, 4), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), EventsFile)
			writeFile(t, path, tt.content)
			got, err := TailMatching(path, tt.n, []byte(tt.needle))
			if err != nil {
				t.Fatalf("TailMatching: %v", err)
			}
			if !slices.Equal(seqs(got.Events), tt.want) || got.Skipped != tt.skipped {
				t.Errorf("events = %v skipped %d, want %v skipped %d", seqs(got.Events), got.Skipped, tt.want, tt.skipped)
			}
			if got.Offset != int64(len(tt.content)) {
				t.Errorf("offset = %d, want %d", got.Offset, len(tt.content))
			}
		})
	}
}

// bigPythonEvent is an events.jsonl line of size bytes or more as the
// Python tool writes it: a SYSTEM dispatch event whose payload carries a
// long tool-call log (its LLM path), compact JSON, one line.
func bigPythonEvent(t testing.TB, size int) []byte {
	t.Helper()
	e := NewEvent(testNow, "DKT-900", "RUN-900", "S1", EventSystem, SeverityInfo,
		ObjectOf("node", "dispatch", "tool_call_log", strings.Repeat("tool output 工具 ", size/16)))
	e.EventID = "evt_big"
	line, err := MarshalLine(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(line) < size {
		t.Fatalf("line of %d bytes, want %d or more", len(line), size)
	}
	return line
}

// TestLongPythonEventsAreRead: events longer than any daokit writes
// (9 MiB, as seen from the Python tool, and 20 MiB) are read by the
// tail, by a follower that meets them growing, and by TailObjects.
func TestLongPythonEventsAreRead(t *testing.T) {
	t.Parallel()
	for _, size := range []int{9 << 20, 20 << 20} {
		big := bigPythonEvent(t, size)
		path := filepath.Join(t.TempDir(), EventsFile)
		writeFile(t, path, testLines(t, 0, 2))
		f := NewFollower(path, 0)
		checkBatch(t, next(t, f), seqRange(0, 2), 0, false)
		// The Python writer's line arrives in pieces, then its newline.
		for off := 0; off < len(big)-1; off += 3 << 20 {
			appendFile(t, path, big[off:min(off+3<<20, len(big)-1)])
			for b := next(t, f); ; b = next(t, f) {
				if len(b.Events) != 0 || b.Skipped != 0 {
					t.Fatalf("a partial line gave %d events, %d skipped", len(b.Events), b.Skipped)
				}
				if !b.More {
					break
				}
			}
		}
		appendFile(t, path, concat([]byte("\n"), testLine(t, 2)))
		var got []Event
		skipped := 0
		for b := next(t, f); ; b = next(t, f) {
			got, skipped = append(got, b.Events...), skipped+b.Skipped
			if !b.More {
				break
			}
		}
		_ = f.Close()
		if len(got) != 2 || got[0].EventID != "evt_big" || skipped != 0 || len(got[0].Payload.String("tool_call_log")) < size/2 {
			t.Errorf("%d MiB: the follower read %d events (%d skipped)", size>>20, len(got), skipped)
		}
		tail, err := TailEvents(path, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(tail.Events) != 2 || tail.Events[0].EventID != "evt_big" || tail.Skipped != 0 {
			t.Errorf("%d MiB: the tail read %d events (%d skipped)", size>>20, len(tail.Events), tail.Skipped)
		}
		objs, err := TailObjects(path, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(objs.Objects) != 2 || objs.Skipped != 0 {
			t.Errorf("%d MiB: TailObjects read %d (%d skipped)", size>>20, len(objs.Objects), objs.Skipped)
		}
	}
}

// tailEvents is TailEvents over any reader, with the chunk size as a
// parameter so that tests can put chunk boundaries everywhere.
func tailEvents(r io.ReaderAt, size int64, n, chunk int) (TailResult, error) {
	return tailWith(r, size, n, chunk, MaxReadLineBytes, nil)
}
