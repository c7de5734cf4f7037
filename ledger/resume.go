package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// The Python tool's resume logs in state/. Its save_state appends one
// line to each for every pipeline it saves, and its runtime resumes
// from the newest valid checkpoint line, not from pipeline_state.json,
// whenever checkpoints.jsonl has one.
const (
	CheckpointsFile = "checkpoints.jsonl"
	SnapshotsFile   = "snapshots.jsonl"
)

// Node labels of the checkpoint and snapshot lines daokit writes. Where
// daokit does what a Python operation does, the label is Python's.
const (
	// NodeSuccessionTakeover is Python's label for a takeover.
	NodeSuccessionTakeover = "succession_takeover"
	// NodeHandoffApply is Python's label for `handoff --apply`.
	NodeHandoffApply = "cli_handoff_apply"
	// NodeDaokitController labels the pipeline writes of daokit's
	// controller (its own runs), which have no Python counterpart.
	NodeDaokitController = "daokit_controller"
	// NodeDaokitCommit labels a Commit that names no node.
	NodeDaokitCommit = "daokit_commit"
)

// journalAppend is one line a pipeline write appends to a resume log:
// the line, and the log's size when the write began (the line goes at
// the end, at or after that point).
type journalAppend struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset"`
	Line   []byte `json:"line"`
}

// resumeLogsActive reports whether the Python tool resumes this root from
// checkpoints.jsonl: the file exists and is not empty. An empty or
// missing file makes the Python runtime read pipeline_state.json, which
// daokit keeps current, so a root only daokit writes pays one fstatat per
// pipeline write and gets no checkpoint lines.
func (s *Store) resumeLogsActive() bool {
	var st unix.Stat_t
	if err := unix.Fstatat(s.dir.fd(), CheckpointsFile, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size > 0
}

// replacePipeline replaces pipeline_state.json with data. On a root the
// Python tool resumes from checkpoints it goes through the commit journal
// with the checkpoint and snapshot lines, as a Commit does: journal, then
// the lines, then the document. A crash before the journal changed
// nothing; one after it leaves a journal that the next daokit writer
// finishes, and in between the Python tool resumes from the new state
// (the newest checkpoint) or, before the lines, from the old one that
// pipeline_state.json still holds. Never from a state older than the
// document. The caller holds docMu.
func (s *Store) replacePipeline(data []byte, node string) error {
	if !s.resumeLogsActive() {
		return s.replaceKnown(PipelineFile, data)
	}
	old, id, err := s.dir.readVersion(PipelineFile, MaxDocumentBytes)
	if err != nil {
		// Not a document daokit could have written (a link, a folder,
		// too large): replaced as ever, and Python's resume state is
		// left to the next write.
		return s.replaceKnown(PipelineFile, data)
	}
	j := journal{Docs: []journalDoc{{Name: PipelineFile, New: data, Old: old, Existed: id.Exists, Before: &id}}}
	s.evMu.Lock()
	j.EventsOffset = s.size
	s.evMu.Unlock()
	if j.Appends, err = s.resumeAppends(data, old, node); err != nil {
		return err
	}
	return s.runJournal(j)
}

// resumeAppends builds the checkpoint line (and the snapshot line, when
// snapshots.jsonl exists) that the Python tool's save_state would append
// for the pipeline document doc replacing old. The caller holds docMu and
// has seen resumeLogsActive.
//
// The snapshot line is written too: Python's `replay --source snapshots`
// reads that log as the history of the pipeline, and its save_state pairs
// the two logs line for line; a takeover missing from it would be
// missing from the history the Python tool shows.
func (s *Store) resumeAppends(doc, old []byte, node string) ([]journalAppend, error) {
	state := bytes.NewBuffer(make([]byte, 0, len(doc)))
	if err := json.Compact(state, doc); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var cur struct {
		Status    *string `json:"status"`
		UpdatedAt string  `json:"updated_at"`
	}
	if err := json.Unmarshal(state.Bytes(), &cur); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var prev struct {
		Status *string `json:"status"`
	}
	if old != nil {
		_ = json.Unmarshal(old, &prev) // an unreadable old pipeline has no status: null
	}
	raw := json.RawMessage(state.Bytes())
	hash, err := MarshalCanonical(raw)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: hash: %w", err)
	}
	ckpt := ObjectOf(
		"schema_version", SchemaVersion,
		"kind", "checkpoint",
		"checkpoint_id", newID("ckpt_"),
		"timestamp", cur.UpdatedAt,
		"node", node,
		"from_status", prev.Status,
		"to_status", cur.Status,
		"state", raw,
		"state_hash", hashHex(hash),
	)
	line, err := MarshalLine(ckpt)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	out := make([]journalAppend, 0, 2)
	size, err := s.logSize(CheckpointsFile)
	if err != nil {
		return nil, err
	}
	out = append(out, journalAppend{Name: CheckpointsFile, Offset: size, Line: line})
	if size, err = s.logSize(SnapshotsFile); errors.Is(err, fs.ErrNotExist) {
		return out, nil
	} else if err != nil {
		return nil, err
	}
	snap := ObjectOf("timestamp", cur.UpdatedAt, "node", node, "from_status", prev.Status,
		"to_status", cur.Status, "state", raw)
	if line, err = MarshalLine(snap); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return append(out, journalAppend{Name: SnapshotsFile, Offset: size, Line: line}), nil
}

// logSize is the size of a resume log.
func (s *Store) logSize(name string) (int64, error) {
	f, err := s.dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// appendResumeLine appends a's line at the end of its log and makes it
// durable before the pipeline document that it describes is replaced. A
// log that does not end in a newline (a writer cut short mid-line) gets
// one first, so that the torn line stays a line of its own, which the
// Python reader skips, rather than swallowing this one.
func (s *Store) appendResumeLine(a journalAppend) error {
	if err := commitStep(a.Name); err != nil {
		return err
	}
	f, err := s.dir.OpenFile(a.Name, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("append %s: %w", a.Name, err)
	}
	defer f.Close()
	buf := a.Line
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append %s: %w", a.Name, err)
	}
	if st.Size() > 0 {
		last := make([]byte, 1)
		if err := readFull(f, last, st.Size()-1); err != nil {
			return fmt.Errorf("append %s: %w", a.Name, err)
		}
		if last[0] != '\n' {
			buf = append([]byte{'\n'}, a.Line...)
		}
	}
	// A write cut short (a full disk) or not made durable is taken back
	// at once: rollBack only recognises the whole line.
	if n, err := f.Write(buf); err != nil {
		if n > 0 {
			_ = f.Truncate(st.Size())
		}
		return fmt.Errorf("append %s: %w", a.Name, err)
	}
	if err := s.fdatasync(f); err != nil {
		_ = f.Truncate(st.Size())
		return fmt.Errorf("append %s: sync: %w", a.Name, err)
	}
	return nil
}

// resumeLineState tells whether a's line is already in its log (after the
// offset it was planned at).
func (s *Store) resumeLineState(a journalAppend) (bool, error) {
	f, err := s.dir.OpenFile(a.Name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	return containsAt(f, a.Line, min(a.Offset, st.Size()), st.Size(), maxJournalBytes)
}

// cutResumeLine removes a's line again when it is the last thing in its
// log (a pipeline write that failed after appending it): the Python tool
// must not resume from a state that was never written. A line another
// writer has appended after stays, and so does a's: it is then no longer
// the newest.
func (s *Store) cutResumeLine(a journalAppend) error {
	f, err := s.dir.OpenFile(a.Name, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	end := st.Size() - int64(len(a.Line))
	if end < a.Offset {
		return nil
	}
	tail := make([]byte, len(a.Line))
	if err := readFull(f, tail, end); err != nil || !bytes.Equal(tail, a.Line) {
		return err
	}
	if end > a.Offset {
		// The newline appendResumeLine put before a torn line goes too.
		if b := make([]byte, 1); readFull(f, b, end-1) == nil && b[0] == '\n' && end-1 == a.Offset {
			end--
		}
	}
	if err := f.Truncate(end); err != nil {
		return err
	}
	return s.fdatasync(f)
}
