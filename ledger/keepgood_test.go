package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A first snapshot with a missing file must report it missing, not keep a
// "last good" value that was never read.
func TestKeepGoodIgnoresANeverLoadedSnapshot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if _, err := Init(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, StateDir, PipelineFile))
	s := LoadSnapshot(root).KeepGood(Snapshot{})
	if s.Pipeline.Stale || !errors.Is(s.Pipeline.Err, ErrMissing) {
		t.Fatalf("got stale=%v err=%v, want a missing file and nothing kept", s.Pipeline.Stale, s.Pipeline.Err)
	}
	if _, err := Init(root, time.Now()); err != nil { // puts the file back
		t.Fatal(err)
	}
	good := LoadSnapshot(root)
	os.WriteFile(filepath.Join(root, StateDir, PipelineFile), []byte("{torn"), 0o644)
	kept := LoadSnapshot(root).KeepGood(good)
	if !kept.Pipeline.Stale || kept.Pipeline.Err == nil || kept.Pipeline.Value.Status != StatusPlanning {
		t.Fatalf("after a good load, a torn file must keep the last good value: %+v", kept.Pipeline)
	}
}

func TestEmptyObjectLinesAreSkippedNotEvents(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), EventsFile)
	e := NewEvent(time.Now(), "T", "R", "S1", EventSystem, SeverityInfo, ObjectOf("n", 1))
	line, _ := MarshalLine(e)
	os.WriteFile(path, append([]byte("{}\n"), line...), 0o644)
	tail, err := TailEvents(path, 10)
	if err != nil || len(tail.Events) != 1 || tail.Skipped != 1 {
		t.Fatalf("got %d events, %d skipped, %v; want 1 and 1", len(tail.Events), tail.Skipped, err)
	}
}
