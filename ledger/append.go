package ledger

import (
	"bytes"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// MaxLineBytes is the largest events.jsonl line, newline included, that
// the store writes: an event whose line would be longer is refused.
const MaxLineBytes = 8 << 20

// MaxReadLineBytes is the longest events.jsonl line readers hold and
// decode. Other tools write longer lines than the store does (the Python
// tool's LLM path logs whole tool-call transcripts; a 9 MiB event was
// seen), and each is read like any other. The bound is far above any
// event a tool writes and only keeps a file that is no log at all (a
// gigabyte without a newline) from costing its size in memory: a longer
// line is skipped and counted, never held.
const MaxReadLineBytes = 256 << 20

// AppendEvent appends one event to events.jsonl and syncs it to disk
// before returning: once it returns nil, the event survives a crash of
// this process or the machine. The line is encoded in full first and
// written with a single write(2), so a reader or a crash sees the whole
// line or a torn tail, never two interleaved events. Events that do not
// validate are refused. Build events with NewEvent.
func (s *Store) AppendEvent(e Event) error {
	line, err := encodeEvent(&e)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if err := s.appendBytes(line, nil); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	return nil
}

// AppendEvents appends events in order with one write(2) and one sync,
// for throughput. Either every event validates and all are written, or
// nothing is.
func (s *Store) AppendEvents(events []Event) error {
	lines, err := EncodeLines(events)
	if err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	return s.AppendLinesWritten(lines, nil)
}

// EncodeLines validates events and encodes them as events.jsonl lines, as
// AppendEvents would write them: so that a caller can encode events as
// they come and append them later in one write (AppendLinesWritten).
func EncodeLines(events []Event) ([]byte, error) {
	buf := make([]byte, 0, 512*len(events))
	for i := range events {
		line, err := encodeEvent(&events[i])
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		buf = append(buf, line...)
	}
	return buf, nil
}

// AppendLinesWritten appends lines that EncodeLines made (any number of
// its results, one after the other) with one write(2) and one sync, as
// AppendEvents does, and calls written, if not nil, once they are in the
// file and before their sync: from then on a killed process no longer
// loses them (the kernel has them), only a crash of the machine before
// the sync can. It still returns after the sync, with its error; after a
// failed sync the lines are cut off the file again. written runs with
// the log locked and must not block.
func (s *Store) AppendLinesWritten(lines []byte, written func()) error {
	if len(lines) == 0 {
		return nil
	}
	if err := s.appendBytes(lines, written); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	return nil
}

func encodeEvent(e *Event) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	line, err := MarshalLine(e)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	if len(line) > MaxLineBytes {
		return nil, fmt.Errorf("event line of %d bytes: %w", len(line), ErrTooLarge)
	}
	return line, nil
}

// appendBytes writes buf with one write(2), calls written (if not nil)
// and syncs.
func (s *Store) appendBytes(buf []byte, written func()) error {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.reopenIfMoved(); err != nil {
		return err
	}
	if s.broken != nil {
		if err := s.cutBack(); err != nil {
			// The earlier failure stays in the chain: a disk that was full
			// is still reported as full, and the caller's retry goes on.
			return fmt.Errorf("cut events back to their last good end after an earlier failure (%w): %w", s.broken, err)
		}
	}
	if s.replica != nil {
		var err error
		if buf, err = s.replicate(buf); err != nil {
			return err
		}
	}
	// os.File.Write issues one write(2) for anything below 1 GiB; with
	// O_APPEND the kernel places it at the current end.
	n, err := s.events.Write(buf)
	if err != nil {
		if n > 0 {
			// Cut the partial line now rather than leave it for the
			// next append or Open: it would precede the next line.
			s.fail(err)
		}
		return err
	}
	if written != nil {
		written()
	}
	if err := s.fdatasync(s.events); err != nil {
		// After a failed fsync the kernel may have dropped the dirty
		// pages, and a second fsync would report success for data that
		// is gone. The lines are not acknowledged: they are cut off
		// here, and the caller writes them again.
		s.fail(err)
		return fmt.Errorf("sync events: %w", err)
	}
	s.size += int64(n)
	s.owed = nil
	return nil
}

// replicate hands buf to the replica before it is written, and returns
// what to write: the lines the replica holds but the file does not yet
// (a write after the replica took them failed) and then buf. A retry of
// those same lines (the caller holds and retries what failed) is not
// handed over twice. The caller holds evMu.
func (s *Store) replicate(buf []byte) ([]byte, error) {
	fresh := buf
	if len(s.owed) > 0 && bytes.HasPrefix(buf, s.owed) {
		fresh = buf[len(s.owed):]
	}
	if len(fresh) > 0 {
		if err := s.replica.Append(fresh); err != nil {
			return nil, err
		}
	}
	s.owed = append(s.owed[:len(s.owed):len(s.owed)], fresh...)
	return s.owed, nil
}

// fail records that bytes after s.size may be on disk in any state, and
// tries at once to cut them off; a cut that fails is tried again before
// the next append. The caller holds evMu.
func (s *Store) fail(err error) {
	s.broken = err
	_ = s.cutBack() // on failure s.broken stays, and appends try again
}

// cutBack truncates events.jsonl to the end of the last append that
// synced, and syncs the truncation. Only when both succeed is the store
// whole again: the file then ends where the last acknowledged line ends,
// and nothing a failed sync may have left half-written remains. The sync
// also writes the last, partly kept block again even if the kernel marked
// its page clean after the failed writeback (file systems zero the cut part of
// that block, which dirties it). The caller holds evMu.
func (s *Store) cutBack() error {
	if err := s.events.Truncate(s.size); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	if err := s.fdatasync(s.events); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	s.broken = nil
	return nil
}

// syncData is fdatasync(2) on f: the data and the size, not the times.
func syncData(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

// reopenIfMoved reopens events.jsonl when someone deleted or replaced it
// while the store held it open. Appending to the old inode would put
// acknowledged events where no reader will ever look.
func (s *Store) reopenIfMoved() error {
	var st unix.Stat_t
	err := unix.Fstatat(s.dir.fd(), EventsFile, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && uint64(st.Ino) == s.ino && uint64(st.Dev) == s.dev {
		return nil
	}
	if _, err := s.openEvents(); err != nil {
		return fmt.Errorf("reopen events: %w", err)
	}
	return nil
}
