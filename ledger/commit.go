package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// JournalFile is the commit journal in state/: while it exists, a Commit
// is under way or was cut short after its commit point.
const JournalFile = "commit.journal"

// Changes is what one operator command writes (takeover, handoff --apply):
// documents replaced and events appended, all or nothing. Nil documents
// are left alone.
type Changes struct {
	Pipeline  *PipelineState
	Leases    *Leases
	Heartbeat *HeartbeatStatus
	Events    []Event
}

// journal is the commit journal's content: each document's new content
// and its old one (absent when the file did not exist), and the events
// with the size of events.jsonl before them.
type journal struct {
	Docs         []journalDoc `json:"docs"`
	EventsOffset int64        `json:"events_offset"`
	Events       []byte       `json:"events"`
}

type journalDoc struct {
	Name    string `json:"name"`
	New     []byte `json:"new"`
	Old     []byte `json:"old,omitempty"`
	Existed bool   `json:"existed"`
}

// commitStep is called before each write of a Commit with what is about
// to be written; the tests make it fail or stop the process there.
var commitStep = func(string) error { return nil }

// Commit writes b all or nothing. Every document is stamped (updated_at),
// validated (see WritePipeline) and encoded, and every event validated,
// before anything is written: one problem and no file changes. Then the
// journal, holding the new and the old contents, is written atomically:
// that is the commit point. The documents are replaced, the events
// appended, and the journal removed. A write that fails puts every file
// back as it was; a process that dies after the commit point leaves the
// journal, from which the next Open finishes the writes. Readers between
// the two see the files as they are on disk.
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
		old, err := s.dir.ReadFile(d.Name, MaxDocumentBytes)
		switch {
		case err == nil:
			d.Old, d.Existed = old, true
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("commit: read %s: %w", d.Name, err)
		}
	}
	s.evMu.Lock()
	j.EventsOffset = s.size
	s.evMu.Unlock()
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("commit: encode journal: %w", err)
	}
	if err := commitStep(JournalFile); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := replaceFile(s.dir, JournalFile, data); err != nil {
		return fmt.Errorf("commit: write journal: %w", err)
	}
	if err := s.apply(j); err != nil {
		if rerr := s.rollBack(j); rerr != nil {
			// The journal stays: the next Open finishes the commit.
			return fmt.Errorf("commit: %w (and putting the files back failed: %v)", err, rerr)
		}
		return fmt.Errorf("commit: %w", err)
	}
	return s.endJournal()
}

// apply performs a journal's writes. The caller holds docMu.
func (s *Store) apply(j journal) error {
	for _, d := range j.Docs {
		if err := commitStep(d.Name); err != nil {
			return err
		}
		if err := replaceFile(s.dir, d.Name, d.New); err != nil {
			return fmt.Errorf("write %s: %w", d.Name, err)
		}
	}
	if len(j.Events) == 0 {
		return nil
	}
	if err := commitStep(EventsFile); err != nil {
		return err
	}
	return s.appendAt(j.EventsOffset, j.Events)
}

// appendAt appends buf to events.jsonl after cutting it back to offset:
// whatever follows offset is an earlier attempt at these same lines.
func (s *Store) appendAt(offset int64, buf []byte) error {
	s.evMu.Lock()
	if s.size > offset {
		if err := s.events.Truncate(offset); err != nil {
			s.evMu.Unlock()
			return fmt.Errorf("cut events back: %w", err)
		}
		s.size = offset
	}
	s.evMu.Unlock()
	return s.appendBytes(buf, nil)
}

// rollBack puts the documents of j back as they were and cuts the events
// it may have appended.
func (s *Store) rollBack(j journal) error {
	var errs []error
	for _, d := range j.Docs {
		var err error
		if d.Existed {
			err = replaceFile(s.dir, d.Name, d.Old)
		} else if err = s.dir.Remove(d.Name); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		errs = append(errs, err)
	}
	s.evMu.Lock()
	if s.size > j.EventsOffset {
		if err := s.events.Truncate(j.EventsOffset); err != nil {
			errs = append(errs, err)
		} else {
			s.size = j.EventsOffset
		}
	}
	s.evMu.Unlock()
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

// finishCommit completes a commit that a dead process left after its
// commit point (Open runs it, with the events file open).
func (s *Store) finishCommit() (bool, error) {
	data, err := s.dir.ReadFile(JournalFile, MaxDocumentBytes*4)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read journal: %w", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return false, fmt.Errorf("read journal: %w", err)
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if err := s.apply(j); err != nil {
		return false, fmt.Errorf("finish commit: %w", err)
	}
	return true, s.endJournal()
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
