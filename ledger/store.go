package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configure Open.
type Options struct {
	// Now stamps updated_at on every document the store writes. nil
	// means time.Now. Tests and the controller inject their clock here.
	Now func() time.Time
	// CreateStateDir makes Open create <root>/state (and root) when it
	// is missing. Without it Open fails with ErrNoStateDir, so that a
	// typo in --root does not silently start a new ledger; `daokit init`
	// (Init) is the usual way to create the layout.
	CreateStateDir bool
	// SyncData makes events.jsonl's appended data durable. nil means
	// fdatasync(2); tests inject one that fails or waits.
	SyncData func(*os.File) error
	// Replica, if not nil, hears every append before it is written (and
	// may refuse it) and every document replaced; see Replica.
	Replica Replica
}

// Store is the single writer of a ledger root. Open takes an exclusive
// OS lock on <root>/state/daokit.lock; a second Open of the same root, in
// this process or another, fails at once with a *LockedError.
//
// Documents are replaced atomically (temp file, fsync, rename, fsync of
// the folder) and only after they validate; events are appended with one
// write(2) per call followed by fdatasync. A Store is safe for concurrent
// use by several goroutines.
type Store struct {
	layout Layout
	// dir is state/, opened once by descriptor: every file the store
	// touches is opened beneath it without following links (see Dir).
	dir    *Dir
	now    func() time.Time
	lock   *fileLock
	repair Repair

	docMu sync.Mutex // serialises document replaces
	evMu  sync.Mutex // serialises appends; guards events, size, broken

	events   *os.File
	ino, dev uint64 // identity of events, to notice a deleted or replaced log
	size     int64  // end of events.jsonl after the last good append
	// broken is set when a failed write or fsync leaves bytes after size
	// whose fate on disk is unknown. The store never builds on such a
	// tail: the next append first cuts the file back to size and syncs
	// that (see cutBack), and writes only once the cut is durable.
	broken error
	closed bool
	// guard remembers the documents' versions, so that a write never
	// replaces another writer's save unseen (see guardedWrite). Guarded
	// by docMu.
	guard guard
	// fdatasync makes events.jsonl's data durable; a field so that a test
	// can make one store's syncs fail.
	fdatasync func(*os.File) error
	// replica hears appends and documents (nil: none); see Replica.
	replica Replica
	// owed are lines the replica holds that a failed write left out of
	// the file: written before anything else (see replicate). Guarded by
	// evMu.
	owed []byte
}

// Open opens root for writing. A root the Python tool keeps on its
// SQLite backend is refused with a *SQLiteBackendError (see
// checkBackend): daokit writes the JSON files only. It takes the lock, removes temp files a
// crashed writer left behind, creates events.jsonl if missing and repairs
// a torn last line (see Repair). The caller must Close the store.
func Open(root string, opts Options) (*Store, error) {
	layout := Layout{Root: root}
	dir, err := openStateDir(root, opts.CreateStateDir)
	if err != nil {
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	if err := checkBackend(root, dir); err != nil {
		_ = dir.Close()
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	lock, err := acquireLock(dir)
	if err != nil {
		_ = dir.Close()
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	fdatasync := opts.SyncData
	if fdatasync == nil {
		fdatasync = syncData
	}
	s := &Store{layout: layout, dir: dir, now: now, lock: lock, fdatasync: fdatasync, replica: opts.Replica}
	if err := s.prepare(); err != nil {
		_ = lock.release()
		_ = dir.Close()
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	return s, nil
}

// openStateDir opens <root>/state beneath root, creating both when
// asked. A link in place of state/ is refused like one in place of a
// file: the writer would otherwise write wherever it points.
func openStateDir(root string, create bool) (*Dir, error) {
	if create {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, fmt.Errorf("create state dir: %w", err)
		}
	}
	dir, err := OpenDir(root, StateDir, create)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, StateDir), ErrNoStateDir)
	}
	return dir, err
}

// prepare runs the crash recovery that must happen before the first
// write: leftover temp files go, the event log's tail is made whole, and
// a Commit cut short after its commit point is finished, or discarded if
// another writer changed its files since (see recoverCommit).
func (s *Store) prepare() error {
	removed, err := removeTempFiles(s.dir)
	if err != nil {
		return err
	}
	repair, err := s.openEvents()
	if err != nil {
		return err
	}
	if repair.FinishedCommit, repair.DiscardedCommit, err = s.recoverCommit(); err != nil {
		return err
	}
	repair.TempFiles = removed
	s.repair = repair
	return s.remember()
}

// openEvents opens (creating if needed) events.jsonl for appending and
// repairs its tail. The caller holds evMu or has not shared s yet.
func (s *Store) openEvents() (Repair, error) {
	f, err := s.dir.OpenFile(EventsFile, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = s.dir.OpenFile(EventsFile, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			err = s.dir.Sync()
			if err != nil {
				_ = f.Close()
			}
		}
	}
	if err != nil {
		return Repair{}, fmt.Errorf("open events: %w", err)
	}
	repair, size, err := repairTail(f)
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil {
			s.ino, s.dev = fileID(st)
		}
	}
	if err != nil {
		_ = f.Close()
		return Repair{}, err
	}
	if s.events != nil {
		_ = s.events.Close()
	}
	// A fresh descriptor on a repaired tail has nothing unknown after size.
	s.events, s.size, s.broken = f, size, nil
	return repair, nil
}

// Repair reports what Open had to fix after an unclean stop, so that the
// controller can record it (for example as a SYSTEM event).
func (s *Store) Repair() Repair { return s.repair }

// Root returns the ledger root the store writes.
func (s *Store) Root() string { return s.layout.Root }

// Layout returns the paths of the store's root.
func (s *Store) Layout() Layout { return s.layout }

// Close releases the events file and the lock. It is safe to call twice.
func (s *Store) Close() error {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.events.Close()
	if lerr := s.lock.release(); err == nil {
		err = lerr
	}
	if derr := s.dir.Close(); err == nil {
		err = derr
	}
	if err != nil {
		return fmt.Errorf("close ledger: %w", err)
	}
	return nil
}

// WritePipeline replaces pipeline_state.json. Like the Python tool's
// save_state, the store sets updated_at from its clock; the stamped
// document is returned. Nothing is written unless the document validates;
// the error then holds the *ValidationError of each problem. Problems the
// file on disk already has at the same place (fields another tool wrote)
// are kept as they are rather than refused; see Commit.
//
// A pipeline another writer saved since the store last read or wrote it
// (the Python tool beside a controller) is not erased: the write fails
// with a *ConflictError and a LEDGER_WRITE_CONFLICT warning event (once
// per foreign version), unless that save holds another run that has
// ended, or nothing readable (a torn save), which is replaced with a
// FOREIGN_PIPELINE_REPLACED event.
//
// On a root the Python tool resumes from checkpoints (a non-empty
// state/checkpoints.jsonl) the write also appends the checkpoint and
// snapshot lines its save_state would, labelled NodeDaokitController;
// see WritePipelineNode.
func (s *Store) WritePipeline(p PipelineState) (PipelineState, error) {
	return s.WritePipelineNode(p, NodeDaokitController)
}

// WritePipelineNode is WritePipeline with the node label of the
// checkpoint and snapshot lines (Python's label where daokit does what a
// Python operation does).
func (s *Store) WritePipelineNode(p PipelineState, node string) (PipelineState, error) {
	p.UpdatedAt = FormatTime(s.now())
	if err := s.writable(PipelineFile, p.Validate()); err != nil {
		return p, fmt.Errorf("write pipeline state: %w", err)
	}
	if err := s.writeGuarded(PipelineFile, p, p.TaskID, p.RunID, node, s.endedForeignRun(p)); err != nil {
		return p, fmt.Errorf("write pipeline state: %w", err)
	}
	return p, nil
}

// WriteHeartbeat replaces heartbeat_status.json, stamping updated_at; see
// WritePipeline.
func (s *Store) WriteHeartbeat(h HeartbeatStatus) (HeartbeatStatus, error) {
	h.UpdatedAt = FormatTime(s.now())
	if err := s.writable(HeartbeatFile, h.Validate()); err != nil {
		return h, fmt.Errorf("write heartbeat status: %w", err)
	}
	// Not guarded: the heartbeat is a liveness signal that each writer
	// states afresh, and a controller that could no longer state it
	// would be judged dead.
	if err := s.writeDoc(HeartbeatFile, h); err != nil {
		return h, fmt.Errorf("write heartbeat status: %w", err)
	}
	return h, nil
}

// WriteLeases replaces process_leases.json, stamping the register's
// updated_at (each record's own timestamps are the caller's). An empty
// schema_version defaults to "1.0.0", as the Python save_leases does.
// Records another writer added or changed since the store last read or
// wrote the file are kept (see mergeLeases, and the LEASES_MERGED event);
// the register written is returned.
func (s *Store) WriteLeases(l Leases) (Leases, error) {
	if l.SchemaVersion == "" {
		l.SchemaVersion = SchemaVersion
	}
	l.UpdatedAt = FormatTime(s.now())
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if s.closed {
		return l, ErrClosed
	}
	merged, taken, err := s.mergeLeases(l)
	if err != nil {
		return l, fmt.Errorf("write leases: %w", err)
	}
	if err := s.writable(LeasesFile, merged.Validate()); err != nil {
		return l, fmt.Errorf("write leases: %w", err)
	}
	data, err := MarshalDocument(merged)
	if err != nil {
		return l, fmt.Errorf("write leases: encode: %w", err)
	}
	if err := s.replaceKnown(LeasesFile, data); err != nil {
		return l, fmt.Errorf("write leases: %w", err)
	}
	if taken > 0 {
		taskID, runID := "daokit", "daokit"
		if o := s.guard.overrides; len(o) > 0 && o[len(o)-1].lease.TaskID != "" && o[len(o)-1].lease.RunID != "" {
			taskID, runID = o[len(o)-1].lease.TaskID, o[len(o)-1].lease.RunID
		}
		e := NewEvent(s.now(), taskID, runID, "", EventSystem, SeverityInfo, ObjectOf(
			"operation", OpLeasesMerged, "file", LeasesFile, "records", taken))
		if line, err := encodeEvent(&e); err == nil {
			_ = s.appendBytes(line, nil) // a note: the register itself is written
		}
	}
	return merged, nil
}

// writeGuarded encodes v and writes it as name unless another writer
// changed name since the store last read or wrote it (guardedWrite).
func (s *Store) writeGuarded(name string, v any, taskID, runID, node string, replaceable func([]byte) *Event) error {
	data, err := MarshalDocument(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	return s.guardedWrite(name, data, taskID, runID, node, replaceable)
}

// validator is implemented by documents that can check themselves.
type validator interface{ Validate() error }

// WriteDocument replaces state/<name> with v encoded as an indent-2 JSON
// document (MarshalDocument). It is meant for the handoff package and
// other whole-file documents without a typed writer. If v has a
// Validate() error method it must pass first. The contract files, the
// event log, the lock file, the Python tool's resume logs and database,
// and names with a path separator or a leading dot are refused with
// ErrReservedName.
func (s *Store) WriteDocument(name string, v any) error {
	if reservedName(name) {
		return fmt.Errorf("write document %q: %w", name, ErrReservedName)
	}
	if val, ok := v.(validator); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("write document %s: %w", name, err)
		}
	}
	if err := s.writeDoc(name, v); err != nil {
		return fmt.Errorf("write document %s: %w", name, err)
	}
	return nil
}

// WriteHandoff replaces state/handoff_package.json; see WriteDocument.
func (s *Store) WriteHandoff(v any) error { return s.WriteDocument(HandoffFile, v) }

func reservedName(name string) bool {
	if name == "" || name != filepath.Base(name) || name[0] == '.' {
		return true
	}
	switch name {
	case PipelineFile, HeartbeatFile, LeasesFile, EventsFile, LockFile, JournalFile,
		CheckpointsFile, SnapshotsFile, PythonSQLiteFile:
		return true
	}
	return false
}

func (s *Store) writeDoc(name string, v any) error {
	data, err := MarshalDocument(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := replaceFile(s.dir, name, data); err != nil {
		return err
	}
	s.replicated(name, data)
	return nil
}

// replicated tells the replica, if any, that name now holds data.
func (s *Store) replicated(name string, data []byte) {
	if s.replica != nil {
		s.replica.Document(name, data)
	}
}
