package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// OpWriteConflict is the operation of the SYSTEM warning a store appends
// when it does not write a document because another writer changed it
// since the store last read or wrote it, and the change cannot be merged.
const OpWriteConflict = "LEDGER_WRITE_CONFLICT"

// OpForeignPipelineReplaced is the operation of the SYSTEM event a store
// appends when it replaces a pipeline another writer saved for a run of
// its own that has ended (see WritePipeline).
const OpForeignPipelineReplaced = "FOREIGN_PIPELINE_REPLACED"

// OpLeasesMerged is the operation of the SYSTEM event a store appends when
// it kept lease records another writer added or changed in
// process_leases.json while writing its own register.
const OpLeasesMerged = "LEASES_MERGED"

// version is what the store last read or wrote of a document.
type version struct {
	id   FileIdentity
	data []byte
}

// guard is the store's memory of the documents it writes, so that it
// never replaces another writer's save unseen. The caller holds docMu.
type guard struct {
	known map[string]version
	// reported holds, per document, the hash of the foreign version whose
	// conflict was reported, so that a retried write warns once.
	reported map[string]string
	// lastOurs is the register the caller last asked to write; overrides
	// are the records of other writers kept on top of the caller's (see
	// mergeLeases).
	lastOurs  map[string]Lease
	overrides []leaseOverride
}

// leaseOverride is another writer's lease record kept in the register:
// replacing the caller's record with the token replaces, or added when
// replaces is empty.
type leaseOverride struct {
	replaces string
	lease    Lease
}

// guardedNames are the documents whose writes are checked against the
// version the store last read or wrote.
var guardedNames = []string{PipelineFile, LeasesFile}

// remember records the versions of the guarded documents as they are on
// disk: what the store's writes are checked against (Open calls it). A
// document that cannot be read (a link, a folder, too large) is not
// remembered: the first write replaces it as before, and from then on
// it is guarded.
func (s *Store) remember() error {
	s.guard = guard{known: map[string]version{}, reported: map[string]string{}}
	for _, name := range guardedNames {
		if data, id, err := s.dir.readVersion(name, MaxDocumentBytes); err == nil {
			s.guard.known[name] = version{id: id, data: data}
		}
	}
	return nil
}

// guardedWrite replaces the document name with data unless another writer
// changed it since the store last read or wrote it; then nothing is
// written, one warning event per foreign version says so, and the error
// is a *ConflictError, unless replaceable says of the foreign content
// that it may go (it then returns the event that says so). The pipeline
// is written with its resume lines for the Python tool (replacePipeline,
// labelled node). The caller holds docMu.
func (s *Store) guardedWrite(name string, data []byte, taskID, runID, node string, replaceable func([]byte) *Event) error {
	if s.closed {
		return ErrClosed
	}
	var note *Event
	if k, tracked := s.guard.known[name]; tracked {
		foreign, cur, err := s.dir.readVersion(name, MaxDocumentBytes)
		if errors.Is(err, ErrNotRegular) {
			// A link or folder planted where the document was: replaced
			// (never followed) or refused by the write itself, as always.
			err, cur = nil, k.id
		}
		if err != nil && !errors.Is(err, ErrTooLarge) {
			return err
		}
		if err != nil || !cur.same(k.id) {
			if replaceable != nil && err == nil {
				note = replaceable(foreign)
			}
			if note == nil {
				return s.conflict(name, k.id, cur, taskID, runID)
			}
		}
	}
	var err error
	if name == PipelineFile {
		err = s.replacePipeline(data, node)
	} else {
		err = s.replaceKnown(name, data)
	}
	if err != nil {
		return err
	}
	if note != nil {
		if line, err := encodeEvent(note); err == nil {
			_ = s.appendBytes(line, nil) // a note: the document itself is written
		}
	}
	return nil
}

// endedForeignRun is the rule by which WritePipeline replaces another
// writer's pipeline: only when it holds another run than ours and that
// run has ended (DONE or FAILED), or when it holds no pipeline at all (an
// empty or torn file, which a writer that truncates and rewrites in place
// left behind: nothing in it can be read, and waiting for it would stop
// daokit's writes for good). A run of ours that another tool changed (a
// Python takeover of daokit's step) and another tool's run in progress
// stop the write instead. An ended run's record stays in its own logs
// (the Python tool's checkpoints and snapshots, and events.jsonl).
func (s *Store) endedForeignRun(ours PipelineState) func([]byte) *Event {
	return func(foreign []byte) *Event {
		p, err := ParsePipelineState(foreign)
		reason := "RUN_ENDED"
		switch {
		case err != nil:
			reason = "UNREADABLE"
		case (p.TaskID == ours.TaskID && p.RunID == ours.RunID) || (p.Status != StatusDone && p.Status != StatusFailed):
			return nil
		}
		e := NewEvent(s.now(), ours.TaskID, ours.RunID, "", EventSystem, SeverityInfo, ObjectOf(
			"operation", OpForeignPipelineReplaced, "file", PipelineFile, "reason_code", reason,
			"replaced_task_id", p.TaskID, "replaced_run_id", p.RunID, "replaced_status", p.Status,
			"replaced_sha256", hashHex(foreign)))
		if ours.TaskID == "" || ours.RunID == "" {
			e.TaskID, e.RunID = "daokit", "daokit"
		}
		return &e
	}
}

// replaceKnown replaces name with data and remembers the new version.
func (s *Store) replaceKnown(name string, data []byte) error {
	id, placed, err := replaceFileID(s.dir, name, data)
	if placed && s.guard.known != nil && slices.Contains(guardedNames, name) {
		s.guard.known[name] = version{id: id, data: data}
	}
	if placed {
		s.replicated(name, data)
	}
	return err
}

// conflict reports a foreign change of name (once per foreign version)
// and returns the *ConflictError.
func (s *Store) conflict(name string, expected, found FileIdentity, taskID, runID string) error {
	cerr := &ConflictError{File: name, Expected: expected, Found: found}
	if s.guard.reported[name] == found.SHA256 {
		return cerr
	}
	if taskID == "" || runID == "" {
		taskID, runID = "daokit", "daokit"
	}
	e := NewEvent(s.now(), taskID, runID, "", EventSystem, SeverityWarn, ObjectOf(
		"operation", OpWriteConflict, "file", name, "reason_code", "CHANGED_BY_ANOTHER_WRITER",
		"expected_sha256", expected.SHA256, "found_sha256", found.SHA256, "action", "not_written"))
	line, err := encodeEvent(&e)
	if err == nil {
		err = s.appendBytes(line, nil)
	}
	if err != nil {
		return fmt.Errorf("%w (and recording it failed: %v)", cerr, err)
	}
	s.guard.reported[name] = found.SHA256
	return cerr
}

// mergeLeases returns the register to write for ours: ours, with every
// record another writer added or changed since the store last read or
// wrote the file kept on top (the Python tool's `run` registers, beats
// and releases its own lease while a controller holds the root). Records
// are matched by lease_token, and a record whose token another writer
// rotated (the Python takeover does) by its lane, step, task, run and
// creation time. Such a record stays in every later write until the
// caller's own register changes that record (the caller wins) or holds
// it. The caller holds docMu. merged reports how many foreign records
// this write took in; a file another writer is still writing (empty, or
// not JSON yet) is a *ConflictError, tried again by the next write.
func (s *Store) mergeLeases(ours Leases) (Leases, int, error) {
	g := &s.guard
	taken, err := s.readForeignLeases()
	if err != nil {
		return ours, 0, err
	}
	ourByToken := map[string]Lease{}
	for _, l := range ours.Leases {
		ourByToken[l.LeaseToken] = l
	}
	kept := g.overrides[:0]
	for _, o := range g.overrides {
		key := o.replaces
		if key == "" {
			key = o.lease.LeaseToken
		}
		mine, has := ourByToken[key]
		prev, had := g.lastOurs[key]
		if has && (!had || !sameLease(mine, prev)) {
			continue // the caller changed (or adopted) this record: its own wins
		}
		kept = append(kept, o)
	}
	g.overrides = kept
	g.lastOurs = ourByToken
	if len(kept) == 0 {
		return ours, taken, nil
	}
	out := ours
	out.Leases = make([]Lease, 0, len(ours.Leases)+len(kept))
	replace := map[string]Lease{}
	var added []Lease
	for _, o := range kept {
		if o.replaces != "" {
			replace[o.replaces] = o.lease
		} else if _, has := ourByToken[o.lease.LeaseToken]; !has {
			added = append(added, o.lease)
		}
	}
	for _, l := range ours.Leases {
		if r, ok := replace[l.LeaseToken]; ok {
			l = r
		}
		out.Leases = append(out.Leases, l)
	}
	out.Leases = append(out.Leases, added...)
	return out, taken, nil
}

// readForeignLeases reads process_leases.json and, if another writer
// changed it since the store last read or wrote it, records its added and
// changed records as overrides. It returns how many.
func (s *Store) readForeignLeases() (int, error) {
	k, tracked := s.guard.known[LeasesFile]
	if !tracked {
		return 0, nil
	}
	disk, cur, err := s.dir.readVersion(LeasesFile, MaxDocumentBytes)
	if (err == nil && cur.same(k.id)) || errors.Is(err, ErrNotRegular) {
		// Unchanged; or a link or folder planted in its place, which
		// the write replaces (never follows) or refuses, as always.
		return 0, nil
	}
	var theirs Leases
	if err == nil {
		theirs, err = ParseLeases(disk)
	}
	if err != nil || !cur.Exists {
		// Unreadable, half-written or gone: nothing to merge yet.
		return 0, s.conflict(LeasesFile, k.id, cur, "", "")
	}
	var base []Lease
	if b, err := ParseLeases(k.data); err == nil && k.id.Exists {
		base = b.Leases
	}
	return s.guard.takeForeign(base, theirs.Leases), nil
}

// takeForeign records as overrides the records of theirs that differ from
// base (the version the store knew), and returns how many.
func (g *guard) takeForeign(base, theirs []Lease) int {
	byToken := map[string]Lease{}
	for _, b := range base {
		byToken[b.LeaseToken] = b
	}
	inTheirs := map[string]bool{}
	for _, t := range theirs {
		inTheirs[t.LeaseToken] = true
	}
	n := 0
	for _, t := range theirs {
		if b, ok := byToken[t.LeaseToken]; ok {
			if !sameLease(b, t) {
				g.override(leaseOverride{replaces: t.LeaseToken, lease: t})
				n++
			}
			continue
		}
		o := leaseOverride{lease: t}
		for _, b := range base {
			// A token rotated in place: the same record with a new holder.
			if !inTheirs[b.LeaseToken] && b.Lane == t.Lane && b.StepID == t.StepID && b.TaskID == t.TaskID &&
				b.RunID == t.RunID && b.CreatedAt == t.CreatedAt {
				o.replaces = b.LeaseToken
				break
			}
		}
		g.override(o)
		n++
	}
	return n
}

// override adds o, replacing an older override of the same record (a
// record kept from another writer that it changed again keeps what it
// replaces in the caller's register).
func (g *guard) override(o leaseOverride) {
	for i, x := range g.overrides {
		if x.lease.LeaseToken == o.lease.LeaseToken {
			o.replaces = x.replaces
		} else if o.replaces == "" || x.replaces != o.replaces {
			continue
		}
		g.overrides[i] = o
		return
	}
	g.overrides = append(g.overrides, o)
}

// sameLease reports whether two records are the same, byte for byte as
// written.
func sameLease(a, b Lease) bool {
	x, err1 := MarshalLine(a)
	y, err2 := MarshalLine(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
