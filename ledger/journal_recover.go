package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// OpCommitDiscarded is the operation of the SYSTEM event a writer appends
// when it discards a commit journal instead of finishing it.
const OpCommitDiscarded = "COMMIT_JOURNAL_DISCARDED"

// Reason codes of a discarded commit journal.
const (
	// ReasonFilesChanged: another writer changed a file the journal
	// covers after the commit point; finishing it would erase that.
	ReasonFilesChanged = "FILES_CHANGED_SINCE_COMMIT"
	// ReasonJournalUnreadable: the journal is not one daokit wrote
	// (unreadable, not JSON, or too large).
	ReasonJournalUnreadable = "JOURNAL_UNREADABLE"
)

// States of a file a commit journal covers, as recovery finds it.
const (
	// JournalUnchanged: the file is the version the commit found (for
	// events.jsonl: its bytes up to the commit's offset are, and the
	// commit's lines are not in it); the commit had not written it yet.
	JournalUnchanged = "unchanged"
	// JournalCommitted: the file holds the commit's version (its lines).
	JournalCommitted = "committed"
	// JournalChanged: someone else changed the file since.
	JournalChanged = "changed"
)

// JournalFileState is one file of a commit journal as recovery found it.
type JournalFileState struct {
	File  string // the state file
	State string // JournalUnchanged, JournalCommitted or JournalChanged
}

// DiscardedCommit describes a commit journal that Open discarded.
type DiscardedCommit struct {
	Reason string             // ReasonFilesChanged or ReasonJournalUnreadable
	Files  []JournalFileState // each file the journal covers
	// EventIDs are the ids of the events the commit would have appended
	// and that were not appended.
	EventIDs []string
}

// recoverCommit deals with a journal that a dead process (or a commit
// that could not put its files back) left after its commit point. Each
// file it covers is either still as the commit found it, already the
// commit's version, or changed by another writer since. When no file was
// changed by someone else, the commit is finished: the documents still
// in their old version get the new one, and the events are appended if
// they are not in the log. When one was, finishing it would erase that
// writer's work (a Python takeover and run in between, say): the journal
// is discarded as it is, nothing is rolled back or cut, and a SYSTEM
// warning event says which files were in which state. The caller holds
// neither lock; Open runs it with the events file open.
func (s *Store) recoverCommit() (finished bool, discarded *DiscardedCommit, err error) {
	data, err := s.dir.ReadFile(JournalFile, maxJournalBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	var j journal
	if err == nil {
		err = parseJournal(data, &j)
	} else if !errors.Is(err, ErrTooLarge) {
		return false, nil, fmt.Errorf("read journal: %w", err)
	}
	if err != nil {
		d := &DiscardedCommit{Reason: ReasonJournalUnreadable}
		return false, d, s.discardJournal(j, d)
	}
	states, docsToWrite, eventsDone, err := s.journalStates(j)
	if err != nil {
		return false, nil, fmt.Errorf("finish commit: %w", err)
	}
	for _, st := range states {
		if st.State == JournalChanged {
			d := &DiscardedCommit{Reason: ReasonFilesChanged, Files: states}
			if !eventsDone {
				d.EventIDs = journalEventIDs(j.Events)
			}
			return false, d, s.discardJournal(j, d)
		}
	}
	// The resume lines go before the documents, as in apply; those the
	// commit already appended stay as they are.
	for _, a := range j.Appends {
		done, err := s.resumeLineState(a)
		if err != nil {
			return false, nil, fmt.Errorf("finish commit: read %s: %w", a.Name, err)
		}
		if !done {
			if err := s.appendResumeLine(a); err != nil {
				return false, nil, fmt.Errorf("finish commit: %w", err)
			}
		}
	}
	for _, doc := range docsToWrite {
		if err := commitStep(doc.Name); err != nil {
			return false, nil, fmt.Errorf("finish commit: %w", err)
		}
		if err := replaceFile(s.dir, doc.Name, doc.New); err != nil {
			return false, nil, fmt.Errorf("finish commit: write %s: %w", doc.Name, err)
		}
	}
	if !eventsDone {
		if err := s.appendJournalEvents(j); err != nil {
			return false, nil, fmt.Errorf("finish commit: %w", err)
		}
	}
	return true, nil, s.endJournal()
}

// parseJournal decodes a journal and refuses one that names any file but
// the documents a Commit writes: recovery replaces the files a journal
// names, and a journal is only a file in state/ that anything could have
// put there.
func parseJournal(data []byte, j *journal) error {
	if err := json.Unmarshal(data, j); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, d := range j.Docs {
		switch {
		case d.Name != PipelineFile && d.Name != LeasesFile && d.Name != HeartbeatFile && d.Name != HandoffFile:
			return fmt.Errorf("journal names %q, which no commit writes", d.Name)
		case seen[d.Name]:
			return fmt.Errorf("journal names %q twice", d.Name)
		}
		seen[d.Name] = true
	}
	if j.EventsOffset < 0 {
		return fmt.Errorf("journal has a negative events offset")
	}
	for _, a := range j.Appends {
		switch {
		case a.Name != CheckpointsFile && a.Name != SnapshotsFile:
			return fmt.Errorf("journal appends to %q, which no commit writes", a.Name)
		case a.Offset < 0:
			return fmt.Errorf("journal has a negative offset for %q", a.Name)
		case !seen[PipelineFile]:
			return fmt.Errorf("journal appends to %q without a pipeline", a.Name)
		}
	}
	return nil
}

// journalStates classifies every file j covers, and returns the documents
// still in their old version and whether the events are already in the
// log (or there are none).
func (s *Store) journalStates(j journal) ([]JournalFileState, []journalDoc, bool, error) {
	var states []JournalFileState
	var toWrite []journalDoc
	for _, d := range j.Docs {
		cur, id, err := s.dir.readVersion(d.Name, MaxDocumentBytes)
		if err != nil && !errors.Is(err, ErrTooLarge) {
			return nil, nil, false, fmt.Errorf("read %s: %w", d.Name, err)
		}
		state := JournalChanged
		switch {
		case err != nil:
			// Larger than any document daokit writes: not the commit's.
		case id.Exists && id.SHA256 == hashHex(d.New):
			state = JournalCommitted
		case d.Before != nil && id.same(*d.Before):
			state = JournalUnchanged
		case d.Before == nil && id.Exists == d.Existed && bytes.Equal(cur, d.Old):
			// A journal of an older daokit: the old content is all it has.
			state = JournalUnchanged
		}
		if state == JournalUnchanged {
			toWrite = append(toWrite, d)
		}
		states = append(states, JournalFileState{File: d.Name, State: state})
	}
	if len(j.Events) == 0 {
		return states, toWrite, true, nil
	}
	state, err := s.eventsState(j)
	if err != nil {
		return nil, nil, false, err
	}
	states = append(states, JournalFileState{File: EventsFile, State: state})
	return states, toWrite, state == JournalCommitted, nil
}

// eventsState classifies events.jsonl for j. Lines another writer
// appended after the commit's offset are no change of what the commit
// relies on: its own lines then go after them. A log cut or rewritten
// before the offset is.
func (s *Store) eventsState(j journal) (string, error) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	st, err := s.events.Stat()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", EventsFile, err)
	}
	size := st.Size()
	if j.EventsBefore != nil {
		ok, err := j.EventsBefore.unchangedUpTo(s.events, size)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", EventsFile, err)
		}
		if !ok {
			return JournalChanged, nil
		}
	} else if size < j.EventsOffset {
		return JournalChanged, nil
	}
	found, err := containsAt(s.events, j.Events, j.EventsOffset, size, maxJournalBytes)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", EventsFile, err)
	}
	if found {
		return JournalCommitted, nil
	}
	return JournalUnchanged, nil
}

// discardJournal appends the warning event for d and removes the journal.
// The event comes first: a journal that then cannot be removed is found
// again by the next writer, which warns again rather than never.
func (s *Store) discardJournal(j journal, d *DiscardedCommit) error {
	taskID, runID := s.journalIDs(j)
	files := make([]Object, 0, len(d.Files))
	for _, f := range d.Files {
		files = append(files, ObjectOf("file", f.File, "state", f.State))
	}
	ids := d.EventIDs
	if ids == nil {
		ids = []string{}
	}
	e := NewEvent(s.now(), taskID, runID, "", EventSystem, SeverityWarn, ObjectOf(
		"operation", OpCommitDiscarded, "reason_code", d.Reason, "journal", JournalFile,
		"files", files, "discarded_event_ids", ids))
	line, err := encodeEvent(&e)
	if err != nil {
		return fmt.Errorf("discard journal: %w", err)
	}
	if err := s.appendBytes(line, nil); err != nil {
		return fmt.Errorf("discard journal: %w", err)
	}
	return s.endJournal()
}

// journalIDs names the task and run of a discarded journal's warning: the
// commit's own events', else the pipeline's on disk, else "daokit" (the
// contract wants non-empty ids).
func (s *Store) journalIDs(j journal) (string, string) {
	if i := bytes.IndexByte(j.Events, '\n'); i > 0 {
		if e, err := ParseEvent(j.Events[:i]); err == nil && e.TaskID != "" && e.RunID != "" {
			return e.TaskID, e.RunID
		}
	}
	if data, err := s.dir.ReadFile(PipelineFile, MaxDocumentBytes); err == nil {
		if p, err := ParsePipelineState(data); err == nil && p.TaskID != "" && p.RunID != "" {
			return p.TaskID, p.RunID
		}
	}
	return "daokit", "daokit"
}

// journalEventIDs lists the event ids of encoded event lines.
func journalEventIDs(lines []byte) []string {
	var ids []string
	for _, line := range bytes.Split(lines, []byte{'\n'}) {
		if e, err := ParseEvent(line); err == nil && e.EventID != "" {
			ids = append(ids, e.EventID)
		}
	}
	return ids
}

// String is a one-line summary for logs (Repair is logged with %+v).
func (d *DiscardedCommit) String() string {
	return fmt.Sprintf("{Reason:%s Files:%v EventIDs:%v}", d.Reason, d.Files, d.EventIDs)
}
