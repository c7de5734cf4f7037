package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// daokitLease is a lease record of daokit's controller.
func daokitLease(token, status string) Lease {
	return Lease{Lane: "controller", StepID: "S1", TaskID: "DK-1", RunID: "R-1", ThreadID: "daokit", PID: 10,
		LeaseToken: token, Expiry: FormatTime(testNow.Add(time.Hour)), Status: status,
		LastHeartbeatAt: FormatTime(testNow), CreatedAt: FormatTime(testNow), UpdatedAt: FormatTime(testNow)}
}

// pythonSaveLeases does what the Python tool's save_leases does to the
// file: read it, change the records, rewrite it in place.
func pythonSaveLeases(t *testing.T, root string, change func(*Leases)) {
	t.Helper()
	l, err := ParseLeases(readFile(t, statePath(root, LeasesFile)))
	if err != nil {
		t.Fatal(err)
	}
	change(&l)
	data, err := MarshalDocument(l)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, statePath(root, LeasesFile), data)
}

// tokens lists the records of the leases file as token:status.
func tokens(t *testing.T, root string) []string {
	t.Helper()
	l, err := ParseLeases(readFile(t, statePath(root, LeasesFile)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range l.Leases {
		out = append(out, x.LeaseToken+":"+x.Status)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLeaseWritesKeepAnotherWritersRecords: the first case. A
// controller that writes its register from memory keeps the lease a
// Python `run` registered beside it, the Python run's release of it, and
// a Python takeover that rotated the token of the controller's own lease;
// its own later change of that lease wins.
func TestLeaseWritesKeepAnotherWritersRecords(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	ours := NewLeases(testNow)
	ours.Leases = []Lease{daokitLease("lease_d", LeaseActive)}
	if _, err := s.WriteLeases(ours); err != nil {
		t.Fatal(err)
	}
	py := daokitLease("lease_py", LeaseActive)
	py.Lane, py.TaskID, py.RunID, py.ThreadID = "default", "DKT-300", "RUN-A", "cli-31228"
	pythonSaveLeases(t, root, func(l *Leases) { l.Leases = append(l.Leases, py) })

	// The controller writes from memory: it knows nothing of lease_py.
	merged, err := s.WriteLeases(ours)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lease_d:ACTIVE", "lease_py:ACTIVE"}
	if got := tokens(t, root); !equalStrings(got, want) || len(merged.Leases) != 2 {
		t.Fatalf("after the controller's write: %v, want %v", got, want)
	}
	if n := len(eventsWith(t, root, OpLeasesMerged)); n != 1 {
		t.Errorf("%d LEASES_MERGED events, want 1", n)
	}
	// The Python run releases its lease; the controller writes twice more.
	pythonSaveLeases(t, root, func(l *Leases) { l.Leases[1].Status = LeaseReleased })
	for range 2 {
		if _, err := s.WriteLeases(ours); err != nil {
			t.Fatal(err)
		}
	}
	want = []string{"lease_d:ACTIVE", "lease_py:RELEASED"}
	if got := tokens(t, root); !equalStrings(got, want) {
		t.Fatalf("after the Python release: %v, want %v", got, want)
	}
	// A Python takeover rotates the token of the controller's lease.
	pythonSaveLeases(t, root, func(l *Leases) {
		l.Leases[0].LeaseToken, l.Leases[0].ThreadID, l.Leases[0].PID = "lease_rotated", "takeover-1", 4242
	})
	if _, err := s.WriteLeases(ours); err != nil {
		t.Fatal(err)
	}
	want = []string{"lease_rotated:ACTIVE", "lease_py:RELEASED"}
	if got := tokens(t, root); !equalStrings(got, want) {
		t.Fatalf("after the Python takeover: %v, want %v", got, want)
	}
	// The controller then releases its lease: its own change wins.
	ours.Leases[0].Status = LeaseReleased
	if _, err := s.WriteLeases(ours); err != nil {
		t.Fatal(err)
	}
	want = []string{"lease_d:RELEASED", "lease_py:RELEASED"}
	if got := tokens(t, root); !equalStrings(got, want) {
		t.Fatalf("after the controller's release: %v, want %v", got, want)
	}
}

// TestPipelineWriteStopsAtAnotherWritersSave: a pipeline another writer
// saved since the store last read or wrote it is not overwritten while it
// holds the store's own run (a Python takeover of daokit's step) or a run
// still under way (a Python run beside the controller): the write fails
// with a *ConflictError, and one warning event says so however often the
// write is tried. A run of another's that has ended, or a torn save that
// holds none, is replaced, and an event names it.
func TestPipelineWriteStopsAtAnotherWritersSave(t *testing.T) {
	t.Parallel()
	ours := NewPipelineState(testNow)
	ours.TaskID, ours.RunID = "DKT-300", "RUN-A"
	cases := []struct {
		name    string
		foreign []byte
		written bool
	}{
		{"a takeover of our run", []byte(strings.Replace(pythonPipeline, `"last_takeover_at": null`, `"last_takeover_at": "2026-11-22T01:50:00+00:00"`, 1)), false},
		{"a run under way", pythonState(t, "interrupted", PipelineFile), false},
		{"a run that ended", pythonState(t, "done", PipelineFile), true},
		{"a torn save", []byte(`{"schema_version": "1.0.0", "task_id": "DK-`), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := initRoot(t)
			s := openStore(t, root)
			if _, err := s.WritePipeline(ours); err != nil {
				t.Fatalf("a write on the version read at Open: %v", err)
			}
			writeFile(t, statePath(root, PipelineFile), c.foreign)
			for range 3 {
				_, err := s.WritePipeline(ours)
				var conflict *ConflictError
				if c.written != (err == nil) || (!c.written && (!errors.As(err, &conflict) || conflict.File != PipelineFile)) {
					t.Fatalf("write over the other writer's save: %v", err)
				}
			}
			got := readFile(t, statePath(root, PipelineFile))
			if c.written == (string(got) == string(c.foreign)) {
				t.Errorf("written %v, but the file holds the other writer's save: %v", c.written, string(got) == string(c.foreign))
			}
			conflicts, replaced := eventsWith(t, root, OpWriteConflict), eventsWith(t, root, OpForeignPipelineReplaced)
			switch {
			case c.written && (len(conflicts) != 0 || len(replaced) != 1 || replaced[0].Payload.String("replaced_sha256") != hashHex(c.foreign)):
				t.Errorf("events: %d conflicts, replaced %+v", len(conflicts), replaced)
			case !c.written && (len(conflicts) != 1 || conflicts[0].Severity != SeverityWarn || conflicts[0].Payload.String("file") != PipelineFile || len(replaced) != 0):
				t.Errorf("events: conflicts %+v, %d replaced", conflicts, len(replaced))
			}
		})
	}
}

// TestCommitStopsAtASaveSinceOpen: a takeover reads the pipeline after
// Open; a Python save between that read and the commit is not erased.
func TestCommitStopsAtASaveSinceOpen(t *testing.T) {
	t.Parallel()
	root := commitRoot(t)
	s := openStore(t, root)
	c := takeoverChanges(t, root)
	// The Python tool saves the pipeline again (save_state stamps it).
	python := strings.Replace(pythonPipeline, "2026-11-22T01:45:05.330468+00:00", "2026-11-22T01:46:00.000001+00:00", 1)
	writeFile(t, statePath(root, PipelineFile), []byte(python))
	before := stateFiles(t, root)
	err := s.Commit(c)
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("commit: %v, want a conflict", err)
	}
	after := stateFiles(t, root)
	if after[PipelineFile] != before[PipelineFile] || after[LeasesFile] != before[LeasesFile] {
		t.Errorf("a stopped commit wrote")
	}
	if _, err := os.Stat(statePath(root, JournalFile)); !os.IsNotExist(err) {
		t.Errorf("journal: %v", err)
	}
}

// TestGuardedWritesNeverFollowFilesPlantedAfterOpen: a link or FIFO put
// in place of a guarded document while the store is open is replaced,
// never followed, as one planted before Open is (and a folder refused).
func TestGuardedWritesNeverFollowFilesPlantedAfterOpen(t *testing.T) {
	t.Parallel()
	writers := map[string]func(s *Store) error{
		PipelineFile: func(s *Store) error {
			_, err := s.WritePipeline(NewPipelineState(testNow))
			return err
		},
		LeasesFile: func(s *Store) error {
			_, err := s.WriteLeases(NewLeases(testNow))
			return err
		},
	}
	for name, write := range writers {
		for _, p := range planters {
			t.Run(name+"/"+p.kind, func(t *testing.T) {
				root := initRoot(t)
				s := openStore(t, root)
				victim := filepath.Join(t.TempDir(), "victim")
				writeFile(t, victim, victimBytes)
				if err := os.Remove(statePath(root, name)); err != nil {
					t.Fatal(err)
				}
				p.plant(t, statePath(root, name), victim)
				err := write(s)
				if p.kind == "folder" {
					if err == nil {
						t.Fatalf("a write over a folder succeeded")
					}
				} else if err != nil {
					t.Fatalf("write: %v", err)
				} else if st, err := os.Lstat(statePath(root, name)); err != nil || !st.Mode().IsRegular() {
					t.Fatalf("%s after the write: %v, %v; want a regular file", name, st, err)
				}
				checkVictim(t, victim)
			})
		}
	}
}
