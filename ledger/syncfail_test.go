package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// scriptedSync is a store's fdatasync that fails with the errors of its
// script, one per call, then succeeds; it counts the calls.
type scriptedSync struct {
	script []error
	calls  int
}

func (f *scriptedSync) sync(file *os.File) error {
	f.calls++
	if len(f.script) > 0 {
		err := f.script[0]
		f.script = f.script[1:]
		return err
	}
	return syncData(file)
}

// TestAppendRecoversFromAFailedSync: an append whose fdatasync fails is
// not acknowledged, its line is cut off the file at once (a retry never
// syncs bytes the kernel may have dropped), and the store takes appends
// again by itself, without a reopen, once a sync succeeds. While the
// syncs keep failing every append fails with the first failure in its
// chain (a full disk stays a full disk for the caller's retry).
func TestAppendRecoversFromAFailedSync(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// script: the errors of the fdatasync calls after line 0 is in.
		script []error
		// failures: how many appends of line 1 fail before one succeeds.
		failures int
	}{
		{"one failed sync, cut back at once", []error{syscall.EIO}, 1},
		{"the cut's sync fails too, cut back on the next append", []error{syscall.ENOSPC, syscall.ENOSPC}, 1},
		{"a disk full for a while", []error{syscall.ENOSPC, syscall.ENOSPC, syscall.ENOSPC, syscall.ENOSPC, syscall.ENOSPC}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := initRoot(t)
			s := openStore(t, root)
			if err := s.AppendEvent(testEvent(0)); err != nil {
				t.Fatalf("AppendEvent(0): %v", err)
			}
			first := tt.script[0]
			fake := &scriptedSync{script: tt.script}
			s.fdatasync = fake.sync
			path := statePath(root, EventsFile)
			for i := range tt.failures {
				err := s.AppendEvent(testEvent(1))
				if !errors.Is(err, first) {
					t.Fatalf("append %d of line 1 = %v, want an error wrapping %v", i+1, err, first)
				}
			}
			if err := s.AppendEvent(testEvent(1)); err != nil {
				t.Fatalf("append of line 1 after the syncs succeed again = %v, want nil", err)
			}
			if err := s.AppendEvent(testEvent(2)); err != nil {
				t.Fatalf("AppendEvent(2): %v", err)
			}
			if got, want := readFile(t, path), testLines(t, 0, 3); !bytes.Equal(got, want) {
				t.Errorf("events.jsonl =\n%s\nwant\n%s", got, want)
			}
			if got, want := s.EventsSize(), int64(len(testLines(t, 0, 3))); got != want {
				t.Errorf("store's end = %d, want %d", got, want)
			}
		})
	}
}

// TestFailedSyncLineIsGoneBeforeTheRetry: the bytes of an append whose
// sync failed are off the file before the append returns, when the cut
// itself synced, so that nothing unacknowledged is ever read back or
// followed by a later line.
func TestFailedSyncLineIsGoneBeforeTheRetry(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	if err := s.AppendEvent(testEvent(0)); err != nil {
		t.Fatalf("AppendEvent(0): %v", err)
	}
	fake := &scriptedSync{script: []error{syscall.EIO}}
	s.fdatasync = fake.sync
	if err := s.AppendEvents([]Event{testEvent(1), testEvent(2)}); !errors.Is(err, syscall.EIO) {
		t.Fatalf("AppendEvents = %v, want EIO", err)
	}
	if got, want := readFile(t, statePath(root, EventsFile)), testLines(t, 0, 1); !bytes.Equal(got, want) {
		t.Errorf("events.jsonl after the failed sync =\n%s\nwant\n%s", got, want)
	}
	if fake.calls != 2 {
		t.Errorf("fdatasync calls = %d, want 2 (the failed append's, then the cut's)", fake.calls)
	}
}

// TestWrittenComesBetweenTheWriteAndTheSync: AppendLinesWritten calls
// written once the lines are in the file and before their sync (a killed
// process would keep them), then waits for the sync all the same; when
// that sync fails the lines are cut off again and the error returned.
func TestWrittenComesBetweenTheWriteAndTheSync(t *testing.T) {
	t.Parallel()
	for _, syncErr := range []error{nil, syscall.EIO} {
		t.Run(fmt.Sprint(syncErr), func(t *testing.T) {
			t.Parallel()
			root := initRoot(t)
			path := statePath(root, EventsFile)
			var steps []string
			s, err := Open(root, Options{SyncData: func(f *os.File) error {
				steps = append(steps, "sync")
				if len(steps) == 2 && steps[0] == "written" { // the append's sync, not the cut's
					return syncErr
				}
				return syncData(f)
			}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			lines, err := EncodeLines([]Event{testEvent(0), testEvent(1)})
			if err != nil {
				t.Fatal(err)
			}
			err = s.AppendLinesWritten(lines, func() {
				steps = append(steps, "written")
				if got, want := readFile(t, path), testLines(t, 0, 2); !bytes.Equal(got, want) {
					t.Errorf("events.jsonl when written is called =\n%s\nwant both lines", got)
				}
			})
			if !errors.Is(err, syncErr) || (syncErr == nil) != (err == nil) {
				t.Fatalf("AppendLinesWritten = %v, want %v", err, syncErr)
			}
			if got := strings.Join(steps, " "); got != "written sync" && got != "written sync sync" {
				t.Errorf("steps %q, want written, the append's sync (and the cut's)", got)
			}
			want := testLines(t, 0, 2)
			if syncErr != nil {
				want = nil
			}
			if got := readFile(t, path); !bytes.Equal(got, want) {
				t.Errorf("events.jsonl after the append =\n%s\nwant\n%s", got, want)
			}
		})
	}
}
