package ledger

import (
	"fmt"
	"io"
	"os"
)

// RepairAction says what Open did to the tail of events.jsonl.
type RepairAction string

// Repair actions. The values are stable codes for logs and events.
const (
	// RepairNone: the log ended with a newline (or was empty).
	RepairNone RepairAction = "none"
	// RepairTerminated: the last line was a complete JSON object that
	// lacked its newline (the writer died between the write and nothing
	// else, or another tool wrote it that way); a newline was added.
	RepairTerminated RepairAction = "terminated"
	// RepairTruncated: the last line was a fragment of a line; it was cut
	// away. No acknowledged event is lost: an append is acknowledged only
	// after its whole line is written and synced.
	RepairTruncated RepairAction = "truncated"
)

// repairFragmentMax bounds Repair.Fragment.
const repairFragmentMax = 256

// Repair reports the crash recovery Open performed.
type Repair struct {
	Action RepairAction
	// Offset is where the torn last line starts in events.jsonl, Length
	// its size in bytes (without a newline).
	Offset int64
	Length int64
	// Fragment holds up to 256 bytes of the torn line, for the log.
	Fragment string
	// TempFiles lists the temp files of an interrupted document replace
	// that Open removed.
	TempFiles []string
	// FinishedCommit is set when Open completed the writes of a Commit
	// whose process died after the commit point.
	FinishedCommit bool
	// DiscardedCommit is set when Open found a commit journal that it
	// must not finish, because another writer changed one of its files
	// since (or the journal is not readable): the journal was removed,
	// nothing else was touched, and a SYSTEM warning event with the
	// operation OpCommitDiscarded was appended.
	DiscardedCommit *DiscardedCommit
}

// Repaired reports whether Open changed anything.
func (r Repair) Repaired() bool {
	return (r.Action != RepairNone && r.Action != "") || len(r.TempFiles) > 0 || r.FinishedCommit || r.DiscardedCommit != nil
}

// repairTail makes events.jsonl end with a newline: a complete last
// object is terminated, a fragment is truncated. It returns the size of
// the file afterwards. f must be open read-write with O_APPEND.
func repairTail(f *os.File) (Repair, int64, error) {
	r := Repair{Action: RepairNone}
	st, err := f.Stat()
	if err != nil {
		return r, 0, fmt.Errorf("repair events: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return r, 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return r, 0, fmt.Errorf("repair events: %w", err)
	}
	if last[0] == '\n' {
		return r, size, nil
	}
	start, err := lineStart(f, size)
	if err != nil {
		return r, 0, fmt.Errorf("repair events: %w", err)
	}
	r.Offset, r.Length = start, size-start
	complete, fragment, err := readFragment(f, start, size)
	if err != nil {
		return r, 0, fmt.Errorf("repair events: %w", err)
	}
	r.Fragment = fragment
	if complete {
		r.Action = RepairTerminated
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return r, 0, fmt.Errorf("repair events: %w", err)
		}
		size++
	} else {
		r.Action = RepairTruncated
		if err := f.Truncate(start); err != nil {
			return r, 0, fmt.Errorf("repair events: %w", err)
		}
		size = start
	}
	if err := f.Sync(); err != nil {
		return r, 0, fmt.Errorf("repair events: %w", err)
	}
	return r, size, nil
}

// readFragment reads the torn line [start, end) and reports whether it is
// a complete JSON object. A line too long to hold is treated as torn.
func readFragment(f io.ReaderAt, start, end int64) (complete bool, head string, err error) {
	n := end - start
	if n > MaxReadLineBytes {
		buf := make([]byte, repairFragmentMax)
		if _, err := f.ReadAt(buf, start); err != nil {
			return false, "", err
		}
		return false, string(buf), nil
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, start); err != nil {
		return false, "", err
	}
	head = string(buf[:min(len(buf), repairFragmentMax)])
	_, derr := decodeObject(buf)
	return derr == nil, head, nil
}
