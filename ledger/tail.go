package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// TailResult is the end of an event log.
type TailResult struct {
	// Events are the last events, oldest first.
	Events []Event
	// Skipped counts the lines examined that were not events (bad JSON,
	// wrong member types, over-long). Blank lines are not counted.
	Skipped int
	// Offset is the end of the last complete line: hand it to
	// NewFollower (or WatchOptions.EventsOffset) to continue with the
	// events appended after this read, none twice and none missed.
	Offset int64
	// Torn reports a partial last line (no newline yet). It was ignored:
	// either its writer is still writing it or a crash cut it short.
	Torn bool
}

// TailEvents returns the last n events of the events.jsonl file at path.
// It reads backwards from the end in 64 KiB chunks and stops as soon as it
// has n events, so its cost depends on n and the length of the lines,
// never on the size of the file. A missing file is a *FileError wrapping
// ErrMissing; an empty file gives no events.
func TailEvents(path string, n int) (TailResult, error) { return tailFile(path, n, nil) }

// TailMatching reads the last n lines of the events.jsonl file at path,
// as TailEvents does, but decodes only the lines that contain needle
// (the bytes of an operation name, say) and returns those events, oldest
// first. Reading a window of recent history for a few kinds of event
// then costs a byte search per line, not a decode: `daokit status` reads
// 50,000 lines this way. Skipped counts the bad lines among those decoded.
func TailMatching(path string, n int, needle []byte) (TailResult, error) {
	return tailFile(path, n, needle)
}

// tailFile opens path for TailEvents (needle nil) or TailMatching.
func tailFile(path string, n int, needle []byte) (TailResult, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return TailResult{}, fileErr(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return TailResult{}, fileErr(path, err)
	}
	res, err := tailWith(f, st.Size(), n, scanChunk, MaxReadLineBytes, needle)
	if err != nil {
		return res, fileErr(path, fmt.Errorf("tail: %w", err))
	}
	return res, nil
}

// fileErr wraps a load failure in a *FileError, mapping "not found" to
// ErrMissing.
func fileErr(path string, err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe // already names the file (or the folder) at fault
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = ErrMissing
	}
	return &FileError{File: filepath.Base(path), Path: path, Err: err}
}

// tailWith is TailEvents over any reader, or with a needle TailMatching: n then counts
// the lines examined, and only those holding needle are decoded. Lines
// longer than maxLine are skipped without being held.
func tailWith(r io.ReaderAt, size int64, n, chunk, maxLine int, needle []byte) (TailResult, error) {
	var res TailResult
	end, err := lineStartChunk(r, size, chunk)
	if err != nil {
		return res, err
	}
	res.Offset, res.Torn = end, end < size
	if n <= 0 {
		return res, nil
	}
	t := tailer{r: r, pos: end, chunk: chunk, want: n, needle: needle, maxLine: maxLine}
	if err := t.run(); err != nil {
		return res, err
	}
	slices.Reverse(t.events)
	res.Events, res.Skipped = t.events, t.skipped
	return res, nil
}

// tailer walks complete lines backwards. The window buf[off:end] always
// holds the bytes [pos, cur) of the file, where cur is just after a
// newline: the last line in the window is complete, the first may begin
// before pos. Chunks are prepended into free space at the front of buf,
// which grows geometrically, so a long line costs linear copying even
// with tiny chunks.
type tailer struct {
	r        io.ReaderAt
	pos      int64
	chunk    int
	want     int
	buf      []byte
	off, end int
	// fresh counts the bytes at the front of the window not yet searched
	// for a newline: the rest is the tail of one partial line, and
	// searching it again after every prepended chunk would be quadratic.
	fresh   int
	events  []Event // newest first
	skipped int
	// needle, when set, makes want a count of lines (examined) and
	// limits decoding to the lines that contain it.
	needle   []byte
	examined int
	maxLine  int // longer lines are skipped, not held
}

// done reports whether the tailer has what it was asked for.
func (t *tailer) done() bool {
	if t.needle != nil {
		return t.examined >= t.want
	}
	return len(t.events) >= t.want
}

func (t *tailer) run() error {
	for !t.done() {
		if data := t.buf[t.off:t.end]; len(data) > 0 {
			search := data[:len(data)-1]
			j := bytes.LastIndexByte(search[:min(t.fresh, len(search))], '\n')
			if j >= 0 || t.pos == 0 {
				t.take(data[j+1 : len(data)-1])
				t.end = t.off + j + 1
				t.fresh = max(j, 0)
				continue
			}
			t.fresh = 0
		}
		if t.pos == 0 {
			return nil
		}
		if t.end-t.off > t.maxLine {
			if err := t.skipLongLine(); err != nil {
				return err
			}
			continue
		}
		if err := t.readChunk(); err != nil {
			return err
		}
	}
	return nil
}

func (t *tailer) take(line []byte) {
	if t.needle != nil {
		if len(line) == 0 {
			return // blank lines are not lines of the log
		}
		t.examined++
		if !bytes.Contains(line, t.needle) {
			return
		}
	}
	if len(line) >= t.maxLine {
		t.skipped++
		return
	}
	switch e, kind := parseLine(line); kind {
	case lineEvent:
		t.events = append(t.events, e)
	case lineBad:
		t.skipped++
	}
}

// readChunk prepends the chunk before pos to the window.
func (t *tailer) readChunk() error {
	k := t.chunk
	if t.pos < int64(k) {
		k = int(t.pos)
	}
	if t.off < k {
		n := t.end - t.off
		size := max(2*n, n+k, 2*t.chunk)
		grown := make([]byte, size)
		copy(grown[size-n:], t.buf[t.off:t.end])
		t.buf, t.off, t.end = grown, size-n, size
	}
	if err := readFull(t.r, t.buf[t.off-k:t.off], t.pos-int64(k)); err != nil {
		return err
	}
	t.off -= k
	t.pos -= int64(k)
	t.fresh += k
	return nil
}

// skipLongLine drops a line longer than maxLine without holding it.
func (t *tailer) skipLongLine() error {
	start, err := lineStartChunk(t.r, t.pos, t.chunk)
	if err != nil {
		return err
	}
	t.skipped++
	t.examined++
	t.buf, t.off, t.end, t.fresh, t.pos = nil, 0, 0, 0, start
	return nil
}
