package ledger

import (
	"bytes"
	"io"
)

// scanChunk is how much of events.jsonl a backward scan reads at a time.
const scanChunk = 64 << 10

// lineKind classifies one events.jsonl line for readers.
type lineKind int

const (
	lineBlank lineKind = iota // white space only: ignored, not counted
	lineEvent                 // parsed as an event
	lineBad                   // not an event: skipped and counted
)

// parseLine reads one line (without its newline). Events of types or
// shapes outside the contract still parse, so that a ledger written by
// another tool is shown; only lines that are not JSON objects of the
// right member types are bad.
func parseLine(line []byte) (Event, lineKind) {
	if len(bytes.TrimSpace(line)) == 0 {
		return Event{}, lineBlank
	}
	e, err := ParseEvent(line)
	// An object with neither an id nor a type is not an event of any tool
	// ("{}", a stray record): skipped and counted, not shown as a blank row.
	if err != nil || (e.EventID == "" && e.EventType == "") {
		return Event{}, lineBad
	}
	return e, lineEvent
}

// lineStart returns the offset just after the last '\n' in [0, end) of r,
// or 0 if there is none, reading backwards so that the cost depends on
// the length of the last line, not the size of the file.
func lineStart(r io.ReaderAt, end int64) (int64, error) {
	return lineStartChunk(r, end, scanChunk)
}

func lineStartChunk(r io.ReaderAt, end int64, chunk int) (int64, error) {
	buf := make([]byte, chunk)
	for pos := end; pos > 0; {
		k := int64(chunk)
		if pos < k {
			k = pos
		}
		pos -= k
		if err := readFull(r, buf[:k], pos); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:k], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
	}
	return 0, nil
}

// readFull reads len(buf) bytes at off. A file that shrank underneath the
// reader gives io.ErrUnexpectedEOF.
func readFull(r io.ReaderAt, buf []byte, off int64) error {
	n, err := r.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
