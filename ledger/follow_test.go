package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// next calls f.Next and fails the test on an error.
func next(t *testing.T, f *Follower) Batch {
	t.Helper()
	b, err := f.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return b
}

func checkBatch(t *testing.T, b Batch, want []string, skipped int, reset bool) {
	t.Helper()
	if !slices.Equal(seqs(b.Events), want) || b.Skipped != skipped || b.Reset != reset {
		t.Errorf("batch = events %v skipped %d reset %v, want %v skipped %d reset %v",
			seqs(b.Events), b.Skipped, b.Reset, want, skipped, reset)
	}
}

func TestFollowerWaitsForPartialLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	writeFile(t, path, nil)
	f := NewFollower(path, 0)
	defer f.Close()
	checkBatch(t, next(t, f), nil, 0, false)

	line := testLine(t, 0)
	appendFile(t, path, line[:17])
	checkBatch(t, next(t, f), nil, 0, false)
	if f.Offset() != 0 {
		t.Errorf("Offset() with a partial line = %d, want 0", f.Offset())
	}
	appendFile(t, path, line[17:60])
	checkBatch(t, next(t, f), nil, 0, false)
	appendFile(t, path, concat(line[60:], testLine(t, 1), []byte("oops\n"), testLine(t, 2)[:5]))
	b := next(t, f)
	checkBatch(t, b, seqRange(0, 2), 1, false)
	if want := int64(len(concat(testLines(t, 0, 2), []byte("oops\n")))); b.Offset != want {
		t.Errorf("Offset = %d, want %d", b.Offset, want)
	}
	appendFile(t, path, testLine(t, 2)[5:])
	checkBatch(t, next(t, f), seqRange(2, 3), 0, false)
}

func TestFollowerStartOffsets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	writeFile(t, path, testLines(t, 0, 5))
	tail, err := TailEvents(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	fromTail := NewFollower(path, tail.Offset)
	defer fromTail.Close()
	fromEnd := NewFollower(path, FromEnd)
	defer fromEnd.Close()
	checkBatch(t, next(t, fromEnd), nil, 0, false)
	appendFile(t, path, testLines(t, 5, 7))
	checkBatch(t, next(t, fromTail), seqRange(5, 7), 0, false)
	checkBatch(t, next(t, fromEnd), seqRange(5, 7), 0, false)

	beyond := NewFollower(path, 1<<30)
	defer beyond.Close()
	checkBatch(t, next(t, beyond), seqRange(0, 7), 0, true)
}

func TestFollowerTruncation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	writeFile(t, path, testLines(t, 0, 5))
	f := NewFollower(path, 0)
	defer f.Close()
	checkBatch(t, next(t, f), seqRange(0, 5), 0, false)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, testLines(t, 10, 12))
	checkBatch(t, next(t, f), seqRange(10, 12), 0, true)
	checkBatch(t, next(t, f), nil, 0, false)
}

func TestFollowerReplacedByRename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, EventsFile)
	writeFile(t, path, testLines(t, 0, 3))
	f := NewFollower(path, 0)
	defer f.Close()
	checkBatch(t, next(t, f), seqRange(0, 3), 0, false)
	// Appended just before the rotation: must not be lost.
	appendFile(t, path, testLines(t, 3, 4))
	other := filepath.Join(dir, "new.jsonl")
	writeFile(t, other, testLines(t, 20, 22))
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	b := next(t, f)
	checkBatch(t, b, seqRange(3, 4), 0, false)
	if !b.More {
		t.Errorf("More = false after draining the old file, want true")
	}
	checkBatch(t, next(t, f), seqRange(20, 22), 0, true)
}

func TestFollowerDeleteAndRecreate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	f := NewFollower(path, FromEnd)
	defer f.Close()
	checkBatch(t, next(t, f), nil, 0, false) // missing: no error
	writeFile(t, path, testLines(t, 0, 2))
	// The file appeared after the follower started: FromEnd must not
	// skip it.
	checkBatch(t, next(t, f), seqRange(0, 2), 0, false)
	// Appended just before the deletion: read from the old inode first.
	appendFile(t, path, testLines(t, 2, 3))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	checkBatch(t, next(t, f), seqRange(2, 3), 0, false)
	checkBatch(t, next(t, f), nil, 0, true)
	checkBatch(t, next(t, f), nil, 0, false)
	writeFile(t, path, testLines(t, 5, 6))
	checkBatch(t, next(t, f), seqRange(5, 6), 0, false)
}

func TestFollowerBoundsEachRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	content := testLines(t, 0, 50)
	writeFile(t, path, content)
	f := NewFollower(path, 0)
	defer f.Close()
	f.maxRead = 1000
	var got []string
	calls := 0
	for {
		b := next(t, f)
		calls++
		got = append(got, seqs(b.Events)...)
		if !b.More {
			break
		}
	}
	if want := seqRange(0, 50); !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
	// A read goes past the cap by at most twice the partial line it met.
	longest := 0
	for _, line := range bytes.Split(content, []byte{'\n'}) {
		longest = max(longest, len(line)+1)
	}
	if min := len(content) / (1000 + 2*longest); calls < min {
		t.Errorf("calls = %d, want at least %d with a 1000-byte cap and lines of up to %d bytes", calls, min, longest)
	}
}

func TestFollowerSkipsOverlongLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	writeFile(t, path, testLines(t, 0, 1))
	f := NewFollower(path, 0)
	defer f.Close()
	f.maxRead = 1 << 20
	f.maxLine = 3 << 20
	checkBatch(t, next(t, f), seqRange(0, 1), 0, false)
	big := make([]byte, f.maxLine+10)
	for i := range big {
		big[i] = 'x'
	}
	appendFile(t, path, big)
	for {
		b := next(t, f)
		if b.Skipped != 0 || len(b.Events) != 0 {
			t.Fatalf("before its newline the long line gave %d events, %d skipped", len(b.Events), b.Skipped)
		}
		if !b.More {
			break
		}
	}
	if !f.skipping {
		t.Errorf("the follower still re-reads a line longer than its cap")
	}
	appendFile(t, path, concat([]byte("\n"), testLine(t, 1)))
	b := next(t, f)
	checkBatch(t, b, seqRange(1, 2), 1, false)
}

func TestFollowerClosed(t *testing.T) {
	t.Parallel()
	f := NewFollower(filepath.Join(t.TempDir(), EventsFile), 0)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Next(); !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close = %v, want ErrClosed", err)
	}
}

// TestFollowerAfterTailRepair is the controller-crash case: the window
// saw half a line, the next writer's Open cut it away and appended new
// events. The follower must read the new events, not the old fragment
// glued to them.
func TestFollowerAfterTailRepair(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	path := statePath(root, EventsFile)
	appendFile(t, path, concat(testLines(t, 0, 2), testLine(t, 2)[:25]))
	f := NewFollower(path, 0)
	defer f.Close()
	checkBatch(t, next(t, f), seqRange(0, 2), 0, false)
	s := openStore(t, root)
	if r := s.Repair(); r.Action != RepairTruncated {
		t.Fatalf("Repair = %+v, want a truncation", r)
	}
	if err := s.AppendEvents([]Event{testEvent(3), testEvent(4)}); err != nil {
		t.Fatal(err)
	}
	checkBatch(t, next(t, f), seqRange(3, 5), 0, false)
}
