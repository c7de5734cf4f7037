package ledger

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MaxLineBytes is the largest events.jsonl line, newline included, that
// the store writes and that readers hold in memory. Longer lines written
// by other tools are skipped (and counted) by readers.
const MaxLineBytes = 8 << 20

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
	if err := s.appendBytes(line); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	return nil
}

// AppendEvents appends events in order with one write(2) and one sync,
// for throughput. Either every event validates and all are written, or
// nothing is.
func (s *Store) AppendEvents(events []Event) error {
	if len(events) == 0 {
		return nil
	}
	buf := make([]byte, 0, 512*len(events))
	for i := range events {
		line, err := encodeEvent(&events[i])
		if err != nil {
			return fmt.Errorf("append events: event %d: %w", i, err)
		}
		buf = append(buf, line...)
	}
	if err := s.appendBytes(buf); err != nil {
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

func (s *Store) appendBytes(buf []byte) error {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.broken != nil:
		return fmt.Errorf("store needs reopening after an earlier failure: %w", s.broken)
	}
	if err := s.reopenIfMoved(); err != nil {
		return err
	}
	// os.File.Write issues one write(2) for anything below 1 GiB; with
	// O_APPEND the kernel places it at the current end.
	n, err := s.events.Write(buf)
	if err != nil {
		if n > 0 {
			// Cut the partial line now rather than leave it for the
			// next Open: later appends would otherwise follow garbage.
			if terr := s.events.Truncate(s.size); terr != nil {
				s.broken = terr
			}
		}
		return err
	}
	if err := unix.Fdatasync(int(s.events.Fd())); err != nil {
		// After a failed fsync the kernel may have dropped the dirty
		// pages; retrying would report success for data that is gone.
		s.broken = err
		return fmt.Errorf("sync events: %w", err)
	}
	s.size += int64(n)
	return nil
}

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
