package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenNeedsStateDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := Open(root, Options{}); !errors.Is(err, ErrNoStateDir) {
		t.Fatalf("Open(no state dir) = %v, want ErrNoStateDir", err)
	}
	s, err := Open(filepath.Join(root, "new"), Options{CreateStateDir: true})
	if err != nil {
		t.Fatalf("Open(CreateStateDir) = %v", err)
	}
	defer s.Close()
	if st, err := os.Stat(filepath.Join(root, "new", StateDir, EventsFile)); err != nil || st.Size() != 0 {
		t.Errorf("events.jsonl after Open: %v, %v; want an empty file", st, err)
	}
	writeFile(t, filepath.Join(root, "file-root"), nil)
	if err := os.MkdirAll(filepath.Join(root, "odd"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "odd", StateDir), []byte("x"))
	if _, err := Open(filepath.Join(root, "odd"), Options{}); !errors.Is(err, ErrExpectedDirectory) {
		t.Errorf("Open(state is a file) = %v, want ErrExpectedDirectory", err)
	}
}

func TestOpenTwiceInOneProcess(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	first := openStore(t, root)
	err := openRefused(t, root)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want *LockedError matching ErrLocked", err)
	}
	if le.HolderPID != os.Getpid() {
		t.Errorf("HolderPID = %d, want %d", le.HolderPID, os.Getpid())
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if err := first.AppendEvent(testEvent(1)); !errors.Is(err, ErrClosed) {
		t.Errorf("AppendEvent after Close = %v, want ErrClosed", err)
	}
	again := openStore(t, root)
	if err := again.AppendEvent(testEvent(1)); err != nil {
		t.Errorf("AppendEvent after reopen: %v", err)
	}
}

func TestOpenRemovesTempFiles(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	temps := []string{".pipeline_state.json.tmp-0123", ".handoff_package.json.tmp-ff"}
	for _, name := range temps {
		writeFile(t, statePath(root, name), []byte("{half"))
	}
	writeFile(t, statePath(root, ".keep"), nil)
	s := openStore(t, root)
	r := s.Repair()
	if !r.Repaired() || len(r.TempFiles) != 2 {
		t.Errorf("Repair() = %+v, want the two temp files", r)
	}
	for _, name := range temps {
		if _, err := os.Stat(statePath(root, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists (%v)", name, err)
		}
	}
	if _, err := os.Stat(statePath(root, ".keep")); err != nil {
		t.Errorf(".keep was removed: %v", err)
	}
}

func TestOpenRepairsTornTail(t *testing.T) {
	t.Parallel()
	complete := testLine(t, 2)
	tests := []struct {
		name       string
		content    []byte
		want       []byte
		action     RepairAction
		offset     int64
		fragLength int64
	}{
		{"empty", nil, nil, RepairNone, 0, 0},
		{"clean", testLines(t, 0, 2), testLines(t, 0, 2), RepairNone, 0, 0},
		{"complete last line without newline",
			append(testLines(t, 0, 2), complete[:len(complete)-1]...), testLines(t, 0, 3),
			RepairTerminated, int64(len(testLines(t, 0, 2))), int64(len(complete) - 1)},
		{"fragment", append(testLines(t, 0, 2), complete[:40]...), testLines(t, 0, 2),
			RepairTruncated, int64(len(testLines(t, 0, 2))), 40},
		{"only a fragment", complete[:10], []byte{}, RepairTruncated, 0, 10},
		{"white space tail", append(testLines(t, 0, 1), ' ', ' '), testLines(t, 0, 1),
			RepairTruncated, int64(len(testLines(t, 0, 1))), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := initRoot(t)
			writeFile(t, statePath(root, EventsFile), tt.content)
			s := openStore(t, root)
			r := s.Repair()
			if r.Action != tt.action || r.Offset != tt.offset || r.Length != tt.fragLength {
				t.Errorf("Repair() = %s at %d len %d, want %s at %d len %d",
					r.Action, r.Offset, r.Length, tt.action, tt.offset, tt.fragLength)
			}
			if got := readFile(t, statePath(root, EventsFile)); !bytes.Equal(got, tt.want) {
				t.Errorf("events.jsonl after repair = %q, want %q", got, tt.want)
			}
			if err := s.AppendEvent(testEvent(9)); err != nil {
				t.Fatalf("AppendEvent after repair: %v", err)
			}
			tail, err := TailEvents(statePath(root, EventsFile), 100)
			if err != nil || tail.Skipped != 0 || len(tail.Events) == 0 || tail.Events[len(tail.Events)-1].DedupKey != "seq:9" {
				t.Errorf("after repair and append: %v skipped=%d events=%v", err, tail.Skipped, seqs(tail.Events))
			}
		})
	}
}

func TestAppendEventsBatch(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	batch := []Event{testEvent(0), testEvent(1), testEvent(2)}
	if err := s.AppendEvents(batch); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	if err := s.AppendEvents(nil); err != nil {
		t.Errorf("AppendEvents(nil) = %v, want nil", err)
	}
	if err := s.AppendEvent(testEvent(3)); err != nil {
		t.Fatalf("AppendEvent: %v", err)
	}
	if got, want := readFile(t, statePath(root, EventsFile)), testLines(t, 0, 4); !bytes.Equal(got, want) {
		t.Errorf("events.jsonl =\n%s\nwant\n%s", got, want)
	}
}

func TestAppendRefusesHugeEvent(t *testing.T) {
	t.Parallel()
	s := openStore(t, initRoot(t))
	e := testEvent(1)
	e.Payload = ObjectOf("blob", strings.Repeat("x", MaxLineBytes))
	if err := s.AppendEvent(e); !errors.Is(err, ErrTooLarge) {
		t.Errorf("AppendEvent(huge) = %v, want ErrTooLarge", err)
	}
}

// handoffDoc is a document with its own validation, like the handoff
// package heal will define.
type handoffDoc struct {
	Valid bool `json:"valid"`
}

func (h handoffDoc) Validate() error {
	if !h.Valid {
		return &ValidationError{File: HandoffFile, Path: "$.valid", Code: ProblemConst, Want: "true"}
	}
	return nil
}

func TestWriteDocument(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	for _, name := range []string{PipelineFile, EventsFile, LockFile, CheckpointsFile, SnapshotsFile, "", ".hidden", "../x.json", "a/b.json"} {
		if err := s.WriteDocument(name, handoffDoc{Valid: true}); !errors.Is(err, ErrReservedName) {
			t.Errorf("WriteDocument(%q) = %v, want ErrReservedName", name, err)
		}
	}
	var ve *ValidationError
	if err := s.WriteHandoff(handoffDoc{}); !errors.As(err, &ve) {
		t.Errorf("WriteHandoff(invalid) = %v, want a *ValidationError", err)
	}
	if _, err := os.Stat(statePath(root, HandoffFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("handoff file written despite validation error: %v", err)
	}
	if err := s.WriteHandoff(handoffDoc{Valid: true}); err != nil {
		t.Fatalf("WriteHandoff: %v", err)
	}
	if got, want := string(readFile(t, statePath(root, HandoffFile))), "{\n  \"valid\": true\n}\n"; got != want {
		t.Errorf("handoff file = %q, want %q", got, want)
	}
	if snap := LoadSnapshot(root); !snap.HandoffPresent {
		t.Errorf("LoadSnapshot().HandoffPresent = false, want true")
	}
}

func TestWriteLeasesDefaultsSchemaVersion(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	got, err := s.WriteLeases(Leases{Leases: []Lease{validLease()}})
	if err != nil {
		t.Fatalf("WriteLeases: %v", err)
	}
	if got.SchemaVersion != SchemaVersion || got.UpdatedAt != FormatTime(testNow) {
		t.Errorf("WriteLeases stamped %q / %q, want %q / %q", got.SchemaVersion, got.UpdatedAt, SchemaVersion, FormatTime(testNow))
	}
}

func TestNoTempFilesLeftAfterWrites(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	for i := range 20 {
		p := NewPipelineState(testNow)
		p.Goal = strings.Repeat("g", i)
		if _, err := s.WritePipeline(p); err != nil {
			t.Fatalf("WritePipeline: %v", err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, StateDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if IsTempName(e.Name()) {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}

func TestAppendFollowsAReplacedLog(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	path := statePath(root, EventsFile)
	if err := s.AppendEvent(testEvent(0)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent(testEvent(1)); err != nil {
		t.Fatalf("AppendEvent after the log was deleted: %v", err)
	}
	if got, want := readFile(t, path), testLine(t, 1); !bytes.Equal(got, want) {
		t.Errorf("recreated log = %q, want %q", got, want)
	}
	rotated := filepath.Join(root, "rotated.jsonl")
	writeFile(t, rotated, concat(testLine(t, 5), testLine(t, 6)[:9]))
	if err := os.Rename(rotated, path); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent(testEvent(7)); err != nil {
		t.Fatalf("AppendEvent after the log was replaced: %v", err)
	}
	if got, want := readFile(t, path), concat(testLine(t, 5), testLine(t, 7)); !bytes.Equal(got, want) {
		t.Errorf("replaced log = %q, want its torn tail cut and the new event appended: %q", got, want)
	}
}

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	const goroutines, each = 6, 40
	errs := make(chan error, goroutines+1)
	for g := range goroutines {
		go func() {
			for i := range each {
				if err := s.AppendEvent(testEvent(g*1000 + i)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	go func() {
		for i := range each {
			p := NewPipelineState(testNow)
			p.Goal = strings.Repeat("x", i)
			if _, err := s.WritePipeline(p); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for range goroutines + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	tail, err := TailEvents(statePath(root, EventsFile), goroutines*each+1)
	if err != nil || tail.Skipped != 0 || len(tail.Events) != goroutines*each {
		t.Fatalf("TailEvents = %d events, %d skipped, %v; want %d clean events", len(tail.Events), tail.Skipped, err, goroutines*each)
	}
	if snap := LoadSnapshot(root); !snap.Pipeline.OK() || snap.Pipeline.Value.Goal != strings.Repeat("x", each-1) {
		t.Errorf("pipeline after concurrent writes: %v %q", snap.Pipeline.Err, snap.Pipeline.Value.Goal)
	}
}
