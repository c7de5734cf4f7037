package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// followMaxRead bounds the bytes one Follower.Next reads, and so the
// memory it uses; Batch.More says when to call again.
const followMaxRead = 4 << 20

// FromEnd as a starting offset makes a Follower (or a Watcher) skip what
// the log holds when it first opens it and deliver only later appends.
const FromEnd int64 = -1

// Batch is what one Follower.Next read.
type Batch struct {
	// Events are the complete new lines that parsed, in file order.
	Events []Event
	// Skipped counts new complete lines that were not events.
	Skipped int
	// Offset is the end of the last complete line read: where a new
	// Follower would resume.
	Offset int64
	// Reset reports that the file was truncated, replaced or deleted
	// since the last call: Events start over from its beginning and a
	// consumer should drop what it showed of the old file.
	Reset bool
	// More reports that the read was capped: call Next again at once.
	More bool
}

// Follower reads the events appended to events.jsonl after an offset.
// It keeps a partial last line until its newline arrives, starts over
// when the file is truncated or replaced by another inode, and treats a
// missing file as empty. A Follower is not safe for concurrent use.
type Follower struct {
	path     string
	f        *os.File
	ino, dev uint64
	offset   int64 // next byte to read from f
	carry    []byte
	skipping bool // inside a line longer than MaxLineBytes
	started  bool // opened the file at least once
	maxRead  int
	closed   bool
}

// NewFollower returns a Follower of the file at path that starts at byte
// offset (normally TailResult.Offset), or at the current end with
// FromEnd. It opens nothing until the first Next.
func NewFollower(path string, offset int64) *Follower {
	return &Follower{path: path, offset: offset, maxRead: followMaxRead}
}

// Offset returns where the next Next resumes, counting a held partial line
// as unread.
func (f *Follower) Offset() int64 { return max(f.offset, 0) - int64(len(f.carry)) }

// Close releases the file. Next after Close returns ErrClosed.
func (f *Follower) Close() error {
	f.closed = true
	return f.closeFile()
}

func (f *Follower) closeFile() error {
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f = nil
	return err
}

// restart forgets the position: the next read starts at byte 0.
func (f *Follower) restart() {
	f.offset, f.carry, f.skipping = 0, nil, false
}

// Next reads from the offset to the end of the file (at most a few MiB)
// and returns the complete lines. Errors are I/O errors; the Follower
// stays usable after one.
func (f *Follower) Next() (Batch, error) {
	if f.closed {
		return Batch{}, ErrClosed
	}
	st, err := os.Stat(f.path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return Batch{Offset: f.Offset()}, fmt.Errorf("follow events: %w", err)
	}
	var b Batch
	if f.f != nil && (missing || !f.same(st)) {
		// Deleted, or replaced by another inode: first read what was
		// appended to the old file before it went, then start over.
		if old := f.drainOld(); len(old.Events) > 0 || old.Skipped > 0 {
			return old, nil
		}
		_ = f.closeFile()
		f.restart()
		b.Reset = true
	}
	if missing {
		if f.offset > 0 || len(f.carry) > 0 {
			b.Reset = true
		}
		// A log that does not exist yet is empty: whatever appears
		// later is new, so FromEnd (or a stale offset) must not skip it.
		f.started = true
		f.restart()
		return b, nil
	}
	if f.f == nil {
		if err := f.open(); err != nil {
			return Batch{Offset: f.Offset()}, err
		}
		if f.f == nil {
			return b, nil
		}
	}
	return f.read(b)
}

// open opens the file. A first open resolves FromEnd and checks the
// starting offset; a reopen (the file was replaced) starts at 0.
func (f *Follower) open() error {
	file, err := os.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("follow events: %w", err)
	}
	st, err := file.Stat()
	if err != nil {
		_ = file.Close()
		return fmt.Errorf("follow events: %w", err)
	}
	f.f = file
	f.ino, f.dev = fileID(st)
	if !f.started {
		f.started = true
		if f.offset < 0 {
			f.offset = st.Size()
		}
	}
	return nil
}

// same reports whether st describes the open file.
func (f *Follower) same(st os.FileInfo) bool {
	ino, dev := fileID(st)
	return ino == f.ino && dev == f.dev
}

// drainOld reads what is left of a file that was renamed away or
// deleted, so that events appended just before a rotation are not lost.
func (f *Follower) drainOld() Batch {
	b, err := f.read(Batch{})
	if err != nil {
		return Batch{}
	}
	b.More = true
	return b
}

// read reads from the open file at the offset, restarting at 0 if the
// file is now shorter than the offset.
func (f *Follower) read(b Batch) (Batch, error) {
	st, err := f.f.Stat()
	if err != nil {
		b.Offset = f.Offset()
		return b, fmt.Errorf("follow events: %w", err)
	}
	size := st.Size()
	if size < f.offset {
		f.restart()
		b.Reset = true
	}
	n := min(size-f.offset, int64(f.maxRead))
	if n <= 0 {
		b.Offset = f.Offset()
		return b, nil
	}
	buf := make([]byte, n)
	got, err := f.f.ReadAt(buf, f.offset)
	buf = buf[:got]
	f.offset += int64(got)
	f.split(buf, &b)
	b.Offset = f.Offset()
	b.More = f.offset < size
	if err != nil && got < len(buf) {
		return b, fmt.Errorf("follow events: %w", err)
	}
	return b, nil
}

// split turns carry+buf into complete lines and keeps the unfinished
// rest in carry. The carry grows in place, so a line that arrives in many
// small writes costs linear, not quadratic, copying.
func (f *Follower) split(buf []byte, b *Batch) {
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			f.hold(buf)
			return
		}
		line := buf[:i]
		if len(f.carry) > 0 {
			f.carry = append(f.carry, line...)
			line = f.carry
		}
		buf = buf[i+1:]
		f.take(line, b)
		// Parsed events copy what they keep, so the buffer is reused;
		// one that held a huge line is let go.
		f.carry = f.carry[:0]
		if cap(f.carry) > 1<<20 {
			f.carry = nil
		}
	}
}

// hold keeps the start of an unfinished line, or gives up on holding it
// once it is longer than any line the store writes.
func (f *Follower) hold(part []byte) {
	switch {
	case f.skipping:
	case len(f.carry)+len(part) >= MaxLineBytes:
		f.carry, f.skipping = nil, true
	default:
		f.carry = append(f.carry, part...)
	}
}

// take counts or parses one complete line.
func (f *Follower) take(line []byte, b *Batch) {
	if f.skipping || len(line) >= MaxLineBytes {
		f.skipping = false
		b.Skipped++
		return
	}
	switch e, kind := parseLine(line); kind {
	case lineEvent:
		b.Events = append(b.Events, e)
	case lineBad:
		b.Skipped++
	}
}

// fileID returns the inode and device of st.
func fileID(st os.FileInfo) (ino, dev uint64) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return sys.Ino, uint64(sys.Dev)
	}
	return 0, 0
}
