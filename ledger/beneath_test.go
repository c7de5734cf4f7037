package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// victimBytes ends in a torn line on purpose: the store's tail repair
// would cut it if it ever opened the victim through a link.
var victimBytes = []byte("{\"event_id\":\"victim\"}\n{\"half\":")

// planter replaces the file at path with something that is not a
// regular file of the ledger, pointing links at victim.
type planter struct {
	kind  string
	plant func(t *testing.T, path, victim string)
}

var planters = []planter{
	{"symlink", func(t *testing.T, path, victim string) {
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
	}},
	{"fifo", func(t *testing.T, path, _ string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"folder", func(t *testing.T, path, _ string) {
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}},
}

// plantedRoot is an initialised root where state/<name> was replaced by
// p, and a victim file outside the root.
func plantedRoot(t *testing.T, name string, p planter) (root, victim string) {
	t.Helper()
	root = initRoot(t)
	victim = filepath.Join(t.TempDir(), "victim")
	writeFile(t, victim, victimBytes)
	path := statePath(root, name)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	p.plant(t, path, victim)
	return root, victim
}

func checkVictim(t *testing.T, victim string) {
	t.Helper()
	if got := readFile(t, victim); !bytes.Equal(got, victimBytes) {
		t.Fatalf("victim outside the root changed: %q, want %q", got, victimBytes)
	}
}

// checkRefused wants an error that names the file and says why.
func checkRefused(t *testing.T, err error, name string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want a refusal", name)
	}
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), name) {
		t.Fatalf("%s: error %q, want ErrNotRegular naming the file", name, err)
	}
}

// The writer's own files (the event log, the lock) are opened in place:
// anything but a regular file there stops Open, and nothing outside the
// root is touched.
func TestOpenRefusesPlantedWriterFiles(t *testing.T) {
	for _, name := range []string{EventsFile, LockFile} {
		for _, p := range planters {
			t.Run(name+"/"+p.kind, func(t *testing.T) {
				root, victim := plantedRoot(t, name, p)
				s, err := Open(root, Options{Now: fixedClock})
				if err == nil {
					_ = s.Close()
				}
				checkRefused(t, err, name)
				if p.kind == "symlink" && !errors.Is(err, ErrSymlink) {
					t.Fatalf("error %q, want ErrSymlink", err)
				}
				checkVictim(t, victim)
			})
		}
	}
}

// Whole-file documents are replaced by rename, which replaces a link or
// a FIFO instead of following it; a folder in the way is an error that
// names the file.
func TestDocumentWritesNeverFollowPlantedFiles(t *testing.T) {
	writers := map[string]func(s *Store) error{
		PipelineFile: func(s *Store) error {
			_, err := s.WritePipeline(NewPipelineState(testNow))
			return err
		},
		HeartbeatFile: func(s *Store) error {
			_, err := s.WriteHeartbeat(NewHeartbeatStatus(testNow))
			return err
		},
		LeasesFile: func(s *Store) error {
			_, err := s.WriteLeases(NewLeases(testNow))
			return err
		},
		HandoffFile: func(s *Store) error { return s.WriteHandoff(map[string]string{"k": "v"}) },
	}
	for name, write := range writers {
		for _, p := range planters {
			t.Run(name+"/"+p.kind, func(t *testing.T) {
				root, victim := plantedRoot(t, name, p)
				s := openStore(t, root)
				err := write(s)
				if p.kind == "folder" {
					if err == nil || !strings.Contains(err.Error(), name) {
						t.Fatalf("error %v, want one naming %s", err, name)
					}
				} else {
					if err != nil {
						t.Fatalf("write: %v", err)
					}
					st, err := os.Lstat(statePath(root, name))
					if err != nil || !st.Mode().IsRegular() {
						t.Fatalf("%s after the write: %v, %v; want a regular file", name, st, err)
					}
				}
				checkVictim(t, victim)
			})
		}
	}
}

// Every reader refuses what the writer refuses, at once (a FIFO never
// blocks it), naming the file.
func TestReadersRefusePlantedFiles(t *testing.T) {
	for _, p := range planters {
		t.Run(p.kind, func(t *testing.T) {
			for _, name := range []string{PipelineFile, HeartbeatFile, LeasesFile} {
				root, victim := plantedRoot(t, name, p)
				snap := LoadSnapshot(root)
				var err error
				switch name {
				case PipelineFile:
					err = snap.Pipeline.Err
				case HeartbeatFile:
					err = snap.Heartbeat.Err
				default:
					err = snap.Leases.Err
				}
				checkRefused(t, err, name)
				checkVictim(t, victim)
			}

			root, victim := plantedRoot(t, EventsFile, p)
			path := statePath(root, EventsFile)
			_, err := TailEvents(path, 10)
			checkRefused(t, err, EventsFile)
			f := NewFollower(path, 0)
			_, err = f.Next()
			_ = f.Close()
			checkRefused(t, err, EventsFile)
			checkVictim(t, victim)

			root, victim = plantedRoot(t, "snapshots.jsonl", p)
			_, err = TailObjects(statePath(root, "snapshots.jsonl"), 10)
			checkRefused(t, err, "snapshots.jsonl")
			_, err = Layout{Root: root}.ReadFile("snapshots.jsonl")
			checkRefused(t, err, "snapshots.jsonl")
			checkVictim(t, victim)

			root, _ = plantedRoot(t, HandoffFile, p)
			if LoadSnapshot(root).HandoffPresent {
				t.Fatal("a planted handoff package counts as present")
			}
		})
	}
}

// A link in place of state/ itself is refused by the writer and the
// readers: the whole ledger would otherwise live wherever it points.
func TestStateFolderLinkRefused(t *testing.T) {
	root := initRoot(t)
	elsewhere := t.TempDir()
	if err := os.Rename(filepath.Join(root, StateDir), filepath.Join(elsewhere, "state")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "state"), filepath.Join(root, StateDir)); err != nil {
		t.Fatal(err)
	}
	events := filepath.Join(elsewhere, "state", EventsFile)
	writeFile(t, events, victimBytes)
	s, err := Open(root, Options{Now: fixedClock})
	if err == nil {
		_ = s.Close()
	}
	if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), StateDir) {
		t.Fatalf("Open: %v, want ErrSymlink naming state", err)
	}
	if err := LoadSnapshot(root).Pipeline.Err; !errors.Is(err, ErrSymlink) {
		t.Fatalf("LoadSnapshot: %v, want ErrSymlink", err)
	}
	if got := readFile(t, events); !bytes.Equal(got, victimBytes) {
		t.Fatalf("events.jsonl behind the link changed: %q", got)
	}
}

// OpenDir walks below its root without following links and refuses to
// climb out of it.
func TestOpenDirStaysBeneath(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a", "b")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"a/b/c", "a/b", "../x", "a/../../x", "/etc", "a//c"} {
		d, err := OpenDir(root, rel, true)
		if err == nil {
			_ = d.Close()
			t.Fatalf("OpenDir(%q) succeeded", rel)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("OpenDir created %v outside the root", entries)
	}
	d, err := OpenDir(root, "a/new/deep", true)
	if err != nil {
		t.Fatalf("OpenDir(a/new/deep): %v", err)
	}
	defer d.Close()
	for _, name := range []string{"", ".", "..", "x/y"} {
		if _, err := d.OpenFile(name, os.O_RDONLY, 0); !errors.Is(err, ErrOutsideRoot) {
			t.Fatalf("OpenFile(%q): %v, want ErrOutsideRoot", name, err)
		}
	}
}
