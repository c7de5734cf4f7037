package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// MaxDocumentBytes bounds what a reader loads of one JSON document.
const MaxDocumentBytes = 64 << 20

// Result is the outcome of loading one ledger document.
type Result[T any] struct {
	// Value is the document. It is meaningful when HasValue reports true:
	// freshly loaded (Err == nil) or kept from an earlier load (Stale).
	Value T
	// Err says why the latest load failed: a *FileError wrapping
	// ErrMissing, ErrEmpty, ErrNotRegular, ErrTooLarge, the
	// *ValidationErrors of bad JSON or a wrong shape, or an I/O error.
	Err error
	// Schema holds the contract problems of a document that loaded:
	// required members absent from the file and what Validate finds. The
	// value is still shown: the Python tool writes documents that break
	// its own schema (step extras, empty strings).
	Schema error
	// Stale reports that Value comes from an earlier load because the
	// latest one failed (see Snapshot.KeepGood).
	Stale bool
	// ModTime is the file's modification time when it was read.
	ModTime time.Time
}

// OK reports whether the latest load succeeded.
func (r Result[T]) OK() bool { return r.Err == nil }

// HasValue reports whether Value holds a document worth showing.
func (r Result[T]) HasValue() bool { return r.Err == nil || r.Stale }

// keepGood returns r, or prev's value marked stale when r failed and prev
// has a value to show. r's error is kept so the failure stays visible.
func (r Result[T]) keepGood(prev Result[T]) Result[T] {
	// A zero Result (nothing loaded yet) has no error but no value
	// either: only a document that was read (ModTime set) or one already
	// kept is worth keeping.
	if r.Err == nil || !(prev.Stale || (prev.Err == nil && !prev.ModTime.IsZero())) {
		return r
	}
	prev.Err, prev.Stale = r.Err, true
	return prev
}

// Snapshot is one read of a ledger's documents.
type Snapshot struct {
	Root      string
	Pipeline  Result[PipelineState]
	Heartbeat Result[HeartbeatStatus]
	Leases    Result[Leases]
	// HandoffPresent reports whether state/handoff_package.json exists.
	HandoffPresent bool
}

// LoadSnapshot reads pipeline_state.json, heartbeat_status.json and
// process_leases.json of root without locking, and notes whether a
// handoff package exists. It never fails as a whole: each document
// carries its own error. Documents are replaced by rename, so each read
// sees one complete version (a Python writer, which truncates and
// rewrites in place, can be caught mid-write: that shows as ErrEmpty or
// invalid JSON until its next save).
func LoadSnapshot(root string) Snapshot {
	s := Snapshot{Root: root}
	dir, err := OpenDir(root, StateDir, false)
	if err == nil {
		defer dir.Close()
	}
	at := stateAt{dir: dir, err: err, path: filepath.Join(root, StateDir)}
	s.Pipeline = loadDocument(at, PipelineFile, ParsePipelineState, (*PipelineState).Validate)
	s.Heartbeat = loadDocument(at, HeartbeatFile, ParseHeartbeatStatus, (*HeartbeatStatus).Validate)
	s.Leases = loadDocument(at, LeasesFile, ParseLeases, (*Leases).Validate)
	if dir != nil {
		if f, err := dir.OpenFile(HandoffFile, os.O_RDONLY, 0); err == nil {
			s.HandoffPresent = true
			_ = f.Close()
		}
	}
	return s
}

// stateAt is the state folder a snapshot reads from, or why it could
// not be opened (then every document reports that reason).
type stateAt struct {
	dir  *Dir
	err  error
	path string
}

// KeepGood returns s with every document that failed to load replaced by
// its last good value from prev, marked Stale and still carrying the new
// error. A window keeps showing the ledger this way while it reports
// which file is broken and why (see Problems).
func (s Snapshot) KeepGood(prev Snapshot) Snapshot {
	s.Pipeline = s.Pipeline.keepGood(prev.Pipeline)
	s.Heartbeat = s.Heartbeat.keepGood(prev.Heartbeat)
	s.Leases = s.Leases.keepGood(prev.Leases)
	return s
}

// Problems returns the load errors of the snapshot, in file order; each
// is a *FileError naming the file. Schema problems are not included.
func (s Snapshot) Problems() []error {
	var out []error
	for _, err := range []error{s.Pipeline.Err, s.Heartbeat.Err, s.Leases.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// loadDocument reads and parses one document.
func loadDocument[T any](at stateAt, name string, parse func([]byte) (T, error), validate func(*T) error) Result[T] {
	var r Result[T]
	path := filepath.Join(at.path, name)
	if at.err != nil {
		r.Err = fileErr(path, at.err)
		return r
	}
	data, mod, err := readDocument(at.dir, name)
	r.ModTime = mod
	if err != nil {
		r.Err = fileErr(path, err)
		return r
	}
	v, err := parse(data)
	if err != nil {
		r.Err = fileErr(path, err)
		return r
	}
	r.Value = v
	r.Schema = errors.Join(missingMembers(filepath.Base(path), data), validate(&r.Value))
	return r
}

// readDocument reads a whole document, refusing non-files, empty files
// and files larger than MaxDocumentBytes.
func readDocument(dir *Dir, name string) ([]byte, time.Time, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxDocumentBytes+1))
	if err != nil {
		return nil, st.ModTime(), fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxDocumentBytes {
		return nil, st.ModTime(), fmt.Errorf("document over %d bytes: %w", MaxDocumentBytes, ErrTooLarge)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, st.ModTime(), ErrEmpty
	}
	return data, st.ModTime(), nil
}
