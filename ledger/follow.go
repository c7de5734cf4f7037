package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// followMaxRead bounds the bytes one Follower.Next reads past a partial
// line, and so the memory it uses (a partial line is read again, see
// readFrom); Batch.More says when to call again.
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
// It waits for a partial last line to be completed, starts over when the
// file is truncated or replaced by another inode, and treats a missing
// file as empty. A Follower is not safe for concurrent use.
//
// A partial line is not kept in memory but read again from the file on
// the next call. That costs a few bytes in the rare case of a read racing
// a write, and makes the Follower correct when a new writer's Open cuts a
// torn fragment away and appends after it: the Follower then reads the
// new lines from where the fragment began, instead of gluing the
// fragment it saw to them.
type Follower struct {
	path     string
	f        *os.File
	ino, dev uint64
	// offset is the end of the last complete line: where reading resumes.
	offset int64
	// pending is the length of the partial line seen after offset; the
	// next read reaches that much further so a line longer than one read
	// still completes.
	pending int64
	// skipping is set inside a line longer than maxLine, which is
	// dropped without being held; skipTo is how far it was scanned.
	skipping bool
	skipTo   int64
	started  bool // opened the file at least once
	maxRead  int
	maxLine  int64 // MaxReadLineBytes; tests lower it
	closed   bool
}

// NewFollower returns a Follower of the file at path that starts at byte
// offset (normally TailResult.Offset), or at the current end with
// FromEnd. It opens nothing until the first Next.
func NewFollower(path string, offset int64) *Follower {
	return &Follower{path: path, offset: offset, maxRead: followMaxRead, maxLine: MaxReadLineBytes}
}

// Offset returns where the next Next resumes: the end of the last
// complete line read.
func (f *Follower) Offset() int64 { return max(f.offset, 0) }

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
	f.offset, f.pending, f.skipping, f.skipTo = 0, 0, false, 0
}

// Next reads from the offset to the end of the file (at most a few MiB)
// and returns the complete lines. Errors are I/O errors; the Follower
// stays usable after one.
func (f *Follower) Next() (Batch, error) {
	if f.closed {
		return Batch{}, ErrClosed
	}
	st, err := os.Lstat(f.path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err == nil && !st.Mode().IsRegular() {
		// A link, a FIFO or a folder: refused, never opened (a FIFO
		// would block the reader, a link could lead out of the root).
		err = fileErr(f.path, notRegular(st.Mode()))
	}
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
		if f.offset > 0 {
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
	file, err := OpenFile(f.path, os.O_RDONLY, 0)
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

// read reads the open file from the offset.
func (f *Follower) read(b Batch) (Batch, error) {
	st, err := f.f.Stat()
	if err != nil {
		b.Offset = f.Offset()
		return b, fmt.Errorf("follow events: %w", err)
	}
	return f.readFrom(f.f, st.Size(), b)
}

// readFrom reads the bytes of r (of the given size) after the offset and
// returns the complete lines, restarting at 0 if r is now shorter than
// the offset.
func (f *Follower) readFrom(r io.ReaderAt, size int64, b Batch) (Batch, error) {
	if size < f.offset {
		f.restart()
		b.Reset = true
	}
	if f.skipping && size < f.skipTo {
		f.skipping = false // the long line was cut: read it again
	}
	// A partial line is read again from its start, and each read reaches
	// twice as far past it: a line of any length completes after a
	// number of reads that grows with the log of its length, and the
	// bytes read again stay within twice the line.
	start, limit := f.offset, int64(f.maxRead)+2*f.pending
	if f.skipping {
		start, limit = f.skipTo, int64(f.maxRead)
	}
	n := min(size-start, limit)
	if n <= 0 {
		b.Offset = f.Offset()
		return b, nil
	}
	buf := make([]byte, n)
	got, err := r.ReadAt(buf, start)
	f.scan(buf[:got], start, &b)
	b.Offset = f.Offset()
	b.More = start+int64(got) < size
	if err != nil && got < len(buf) && !errors.Is(err, io.EOF) {
		return b, fmt.Errorf("follow events: %w", err)
	}
	return b, nil
}

// scan takes the complete lines of buf, which starts at file offset start.
func (f *Follower) scan(buf []byte, start int64, b *Batch) {
	pos := 0
	for {
		i := bytes.IndexByte(buf[pos:], '\n')
		if i < 0 {
			break
		}
		f.take(buf[pos:pos+i], b)
		pos += i + 1
		f.offset = start + int64(pos)
	}
	rest := int64(len(buf) - pos)
	switch {
	case f.skipping:
		f.skipTo = start + int64(len(buf))
	case rest >= f.maxLine:
		// Longer than any line a tool writes: stop reading it again and
		// skip to its newline.
		f.skipping, f.skipTo, f.pending = true, start+int64(len(buf)), 0
	default:
		f.pending = rest
	}
}

// take counts or parses one complete line.
func (f *Follower) take(line []byte, b *Batch) {
	if f.skipping || int64(len(line)) >= f.maxLine {
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
