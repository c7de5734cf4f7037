package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// JournalFile is the commit journal in state/: while it exists, a Commit
// is under way or was cut short after its commit point.
const JournalFile = "commit.journal"

// Changes is what one operator command writes (takeover, handoff --apply):
// documents replaced and events appended, all or nothing. Nil documents
// are left alone. Handoff is there because a takeover hands off in the
// same breath: a package without the takeover it describes (or the
// reverse) would resume the wrong thing.
type Changes struct {
	Pipeline  *PipelineState
	Leases    *Leases
	Heartbeat *HeartbeatStatus
	Handoff   *HandoffPackage
	Events    []Event
	// Node labels the checkpoint and snapshot lines written for the
	// Python tool when Pipeline is set on a root it resumes from
	// checkpoints (NodeSuccessionTakeover, NodeHandoffApply; ""
	// is NodeDaokitCommit).
	Node string
}

// journal is the commit journal's content: each document's new content,
// its old one (absent when the file did not exist) and the identity of
// that old version, and the events with events.jsonl's size and identity
// before them. The identities let a later writer tell whether the files
// are still as the commit found them (see recoverCommit); a journal of an
// older daokit has none, and is then judged by the old contents alone.
type journal struct {
	Docs         []journalDoc    `json:"docs"`
	EventsOffset int64           `json:"events_offset"`
	Events       []byte          `json:"events"`
	EventsBefore *eventsIdentity `json:"events_before,omitempty"`
	// Appends are the lines for the Python tool's resume logs that a
	// pipeline write adds (see resumeAppends). They are written after the
	// commit point and before the pipeline: whoever resumes from them
	// then never finds an older state than pipeline_state.json holds.
	Appends []journalAppend `json:"appends,omitempty"`
}

type journalDoc struct {
	Name    string        `json:"name"`
	New     []byte        `json:"new"`
	Old     []byte        `json:"old,omitempty"`
	Existed bool          `json:"existed"`
	Before  *FileIdentity `json:"before,omitempty"`
}

// maxJournalBytes bounds the journal a writer reads: four documents,
// new and old, base64-encoded, and the events.
const maxJournalBytes = MaxDocumentBytes * 6

// stepCommitted is the commitStep after the last write, before the
// journal is removed.
const stepCommitted = "committed"

// taskRun names the task and run of b's change, for a conflict warning.
func (b Changes) taskRun() (string, string) {
	if b.Pipeline != nil {
		return b.Pipeline.TaskID, b.Pipeline.RunID
	}
	for _, e := range b.Events {
		return e.TaskID, e.RunID
	}
	return "", ""
}

// commitStep is called before each write of a Commit with what is about
// to be written; the tests make it fail or stop the process there.
var commitStep = func(string) error { return nil }

// Commit writes b all or nothing. Every document is stamped (updated_at),
// validated (see WritePipeline) and encoded, and every event validated,
// before anything is written: one problem and no file changes. Then the
// journal, holding the new and the old contents and the identity (size,
// time, hash) of every file it covers, is written atomically: that is the
// commit point. The documents are replaced, each only if it is still the
// version the journal recorded (another writer's save in between stops
// the commit with a *ConflictError), the events appended, and the journal
// removed.
//
// A write that fails puts back the documents the commit replaced and
// removes the journal: nothing changed. Only when putting them back fails
// too does the journal stay, and the error is a *PendingCommitError: the
// next writer finishes the commit, as it does for a process that died
// after the commit point, provided no other writer changed the files
// since (see recoverCommit). Readers between the two see the files as
// they are on disk.
func (s *Store) Commit(b Changes) error {
	var j journal
	add := func(name string, v any) error {
		data, err := MarshalDocument(v)
		if err != nil {
			return fmt.Errorf("commit: encode %s: %w", name, err)
		}
		j.Docs = append(j.Docs, journalDoc{Name: name, New: data})
		return nil
	}
	now := FormatTime(s.now())
	// The handoff package is written first: it is usually a new file, so
	// a disk too full for it stops the commit before any document was
	// replaced, and a roll back removes it first, giving its space back
	// to the documents being put back.
	if h := b.Handoff; h != nil {
		if err := h.Validate(); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		if err := add(HandoffFile, *h); err != nil {
			return err
		}
	}
	if p := b.Pipeline; p != nil {
		p.UpdatedAt = now
		if err := s.writable(PipelineFile, p.Validate()); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		if err := add(PipelineFile, *p); err != nil {
			return err
		}
	}
	if l := b.Leases; l != nil {
		if l.SchemaVersion == "" {
			l.SchemaVersion = SchemaVersion
		}
		l.UpdatedAt = now
		if err := s.writable(LeasesFile, l.Validate()); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		if err := add(LeasesFile, *l); err != nil {
			return err
		}
	}
	if h := b.Heartbeat; h != nil {
		h.UpdatedAt = now
		if err := s.writable(HeartbeatFile, h.Validate()); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		if err := add(HeartbeatFile, *h); err != nil {
			return err
		}
	}
	for i := range b.Events {
		line, err := encodeEvent(&b.Events[i])
		if err != nil {
			return fmt.Errorf("commit: event %d: %w", i, err)
		}
		j.Events = append(j.Events, line...)
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if s.closed {
		return ErrClosed
	}
	for i := range j.Docs {
		d := &j.Docs[i]
		old, id, err := s.dir.readVersion(d.Name, MaxDocumentBytes)
		if err != nil {
			return fmt.Errorf("commit: read %s: %w", d.Name, err)
		}
		d.Old, d.Existed, d.Before = old, id.Exists, &id
		// The command built its change on what it read after Open; a
		// save by another writer since would be erased.
		if k, tracked := s.guard.known[d.Name]; tracked && !id.same(k.id) {
			taskID, runID := b.taskRun()
			return s.conflict(d.Name, k.id, id, taskID, runID)
		}
	}
	s.evMu.Lock()
	j.EventsOffset = s.size
	evID, err := identifyEvents(s.events, s.size)
	s.evMu.Unlock()
	if err != nil {
		return fmt.Errorf("commit: read %s: %w", EventsFile, err)
	}
	j.EventsBefore = &evID
	if b.Pipeline != nil && s.resumeLogsActive() {
		node := b.Node
		if node == "" {
			node = NodeDaokitCommit
		}
		// The pipeline is not the first document when a handoff package
		// rides along (a takeover): find it by name.
		i := slices.IndexFunc(j.Docs, func(d journalDoc) bool { return d.Name == PipelineFile })
		if j.Appends, err = s.resumeAppends(j.Docs[i].New, j.Docs[i].Old, node); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
	}
	err = s.runJournal(j)
	var pending *PendingCommitError
	if err != nil && !errors.As(err, &pending) {
		return fmt.Errorf("commit: %w", err)
	}
	return err
}

// runJournal writes j (the commit point), performs it and removes it; a
// failure puts back what it had written (see Commit). The caller holds
// docMu.
func (s *Store) runJournal(j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode journal: %w", err)
	}
	if err := commitStep(JournalFile); err != nil {
		return err
	}
	if err := replaceFile(s.dir, JournalFile, data); err != nil {
		// The journal may be in place all the same (the rename went
		// through, the folder's sync failed). The command reports that
		// nothing changed, so no later writer may finish it.
		if rerr := s.endJournal(); rerr != nil {
			return &PendingCommitError{Err: fmt.Errorf("write journal: %w", err), Undo: rerr}
		}
		return fmt.Errorf("write journal: %w", err)
	}
	if err := s.apply(j); err != nil {
		if rerr := s.rollBack(j); rerr != nil {
			return &PendingCommitError{Err: err, Undo: rerr}
		}
		return err
	}
	if err := commitStep(stepCommitted); err != nil {
		return err
	}
	// Every file holds the commit now. A journal that cannot be removed
	// is harmless: the next writer finds every file in its new version
	// and only removes it (or, if another tool wrote in between, discards
	// it with a warning that names the files as committed).
	_ = s.endJournal()
	return nil
}

// apply performs a journal's writes in this process, refusing to replace
// a document that is no longer the version the journal recorded. The
// caller holds docMu.
func (s *Store) apply(j journal) error {
	if len(j.Appends) > 0 {
		// The resume lines go first, so every document must be known
		// writable before them: a line for a write that is then refused
		// would be a state Python resumes from that never was.
		for _, d := range j.Docs {
			if _, cur, err := s.dir.readVersion(d.Name, MaxDocumentBytes); err != nil {
				return fmt.Errorf("read %s: %w", d.Name, err)
			} else if d.Before != nil && !cur.same(*d.Before) {
				return &ConflictError{File: d.Name, Expected: *d.Before, Found: cur}
			}
		}
		for _, a := range j.Appends {
			if err := s.appendResumeLine(a); err != nil {
				return err
			}
		}
	}
	for _, d := range j.Docs {
		if err := commitStep(d.Name); err != nil {
			return err
		}
		_, cur, err := s.dir.readVersion(d.Name, MaxDocumentBytes)
		if err != nil {
			return fmt.Errorf("read %s: %w", d.Name, err)
		}
		if d.Before != nil && !cur.same(*d.Before) {
			return &ConflictError{File: d.Name, Expected: *d.Before, Found: cur}
		}
		if err := s.replaceKnown(d.Name, d.New); err != nil {
			return fmt.Errorf("write %s: %w", d.Name, err)
		}
	}
	return s.appendJournalEvents(j)
}

// appendJournalEvents appends the journal's events at the end of
// events.jsonl. They are never placed by cutting the file back: whatever
// follows the offset the journal recorded is another writer's, and stays.
func (s *Store) appendJournalEvents(j journal) error {
	if len(j.Events) == 0 {
		return nil
	}
	if err := commitStep(EventsFile); err != nil {
		return err
	}
	return s.appendBytes(j.Events, nil)
}

// rollBack puts back the documents of j that hold its new version, and
// removes the journal. A document in any other version was not written
// by this commit (or was written since by someone else) and stays as it
// is. The events need nothing: they are the last write, and an append
// that fails cuts its own bytes off (appendBytes).
func (s *Store) rollBack(j journal) error {
	var errs []error
	for _, a := range j.Appends {
		errs = append(errs, s.cutResumeLine(a))
	}
	for _, d := range j.Docs {
		_, cur, err := s.dir.readVersion(d.Name, MaxDocumentBytes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !cur.Exists || cur.SHA256 != hashHex(d.New) {
			continue
		}
		if d.Existed {
			err = s.replaceKnown(d.Name, d.Old)
		} else if err = s.dir.Remove(d.Name); errors.Is(err, fs.ErrNotExist) || err == nil {
			err = nil
			if _, tracked := s.guard.known[d.Name]; tracked {
				s.guard.known[d.Name] = version{}
			}
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return s.endJournal()
}

// endJournal removes the journal: the commit is over.
func (s *Store) endJournal() error {
	if err := s.dir.Remove(JournalFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("commit: remove journal: %w", err)
	}
	if err := s.dir.Sync(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// writable is a document's validation result as a write sees it: a
// problem that the file on disk already has at the same place (a field
// another tool wrote, kept as it was, or a role_lifecycle value of its
// own shape) is not daokit's doing and does not stop the write, so that
// rewriting another tool's ledger keeps what daokit does not own. Every
// problem daokit would introduce still does.
func (s *Store) writable(name string, err error) error {
	problems := Problems(err)
	if len(problems) == 0 {
		return err
	}
	onDisk := map[string]bool{}
	if data, rerr := s.dir.ReadFile(name, MaxDocumentBytes); rerr == nil {
		for _, p := range Problems(validateDocument(name, data)) {
			onDisk[p.Path+"\x00"+p.Code] = true
		}
	}
	var kept []error
	for _, p := range problems {
		if !onDisk[p.Path+"\x00"+p.Code] {
			kept = append(kept, p)
		}
	}
	return errors.Join(kept...)
}

// validateDocument parses a contract document by name and validates it.
func validateDocument(name string, data []byte) error {
	switch name {
	case PipelineFile:
		p, err := ParsePipelineState(data)
		if err != nil {
			return err
		}
		return p.Validate()
	case LeasesFile:
		l, err := ParseLeases(data)
		if err != nil {
			return err
		}
		return l.Validate()
	case HeartbeatFile:
		h, err := ParseHeartbeatStatus(data)
		if err != nil {
			return err
		}
		return h.Validate()
	}
	return nil
}
