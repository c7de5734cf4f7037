package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var initLayout = []string{"src", "contracts", "state", "artifacts", "docs", "tests", "examples",
	"state/pipeline_state.json", "state/heartbeat_status.json", "state/process_leases.json", "state/events.jsonl"}

func TestInitCreatesLayoutThenLeavesItAlone(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "fresh")
	first, err := Init(root, testNow)
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	if !slices.Equal(first.Created, initLayout) || len(first.Unchanged) != 0 {
		t.Errorf("first Init created %v unchanged %v, want created %v", first.Created, first.Unchanged, initLayout)
	}
	if !filepath.IsAbs(first.Root) {
		t.Errorf("Root = %q, want an absolute path", first.Root)
	}
	// Sentinels prove that a second Init never overwrites.
	for _, name := range StateFiles() {
		writeFile(t, statePath(root, name), []byte(name+"-sentinel\n"))
	}
	second, err := Init(root, testNow)
	if err != nil {
		t.Fatalf("second Init: %v", err)
	}
	if len(second.Created) != 0 || !slices.Equal(second.Unchanged, initLayout) {
		t.Errorf("second Init created %v unchanged %v, want unchanged %v", second.Created, second.Unchanged, initLayout)
	}
	for _, name := range StateFiles() {
		if got := string(readFile(t, statePath(root, name))); got != name+"-sentinel\n" {
			t.Errorf("%s = %q after second Init, want the sentinel", name, got)
		}
	}
}

func TestInitFillsGaps(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	if err := os.Remove(statePath(root, LeasesFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "docs")); err != nil {
		t.Fatal(err)
	}
	res, err := Init(root, testNow)
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	if want := []string{"docs", "state/process_leases.json"}; !slices.Equal(res.Created, want) {
		t.Errorf("Created = %v, want %v", res.Created, want)
	}
}

func TestInitErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, root string) string // returns the root to init
		want    error
		badPath string // relative to the returned root
		message string
	}{
		{"root is a file", func(t *testing.T, root string) string {
			p := filepath.Join(root, "root-file")
			writeFile(t, p, []byte("not-a-directory"))
			return p
		}, ErrRootNotDirectory, "", "target root '%s' is not a directory"},
		{"src is a file", func(t *testing.T, root string) string {
			writeFile(t, filepath.Join(root, "src"), []byte("occupied"))
			return root
		}, ErrExpectedDirectory, "src", "expected directory at '%s', found non-directory entry"},
		{"pipeline state is a folder", func(t *testing.T, root string) string {
			if err := os.MkdirAll(filepath.Join(root, "state", PipelineFile), 0o755); err != nil {
				t.Fatal(err)
			}
			return root
		}, ErrExpectedFile, "state/" + PipelineFile, "expected file at '%s', found non-file entry"},
		{"events is a dangling link", func(t *testing.T, root string) string {
			if err := os.MkdirAll(filepath.Join(root, "state"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("nowhere", filepath.Join(root, "state", EventsFile)); err != nil {
				t.Fatal(err)
			}
			return root
		}, ErrExpectedFile, "state/" + EventsFile, "expected file at '%s', found non-file entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tt.setup(t, t.TempDir())
			_, err := Init(root, testNow)
			var ie *InitError
			if !errors.As(err, &ie) || !errors.Is(err, tt.want) {
				t.Fatalf("Init = %v, want an *InitError wrapping %v", err, tt.want)
			}
			wantPath := filepath.Join(root, filepath.FromSlash(tt.badPath))
			if ie.Path != wantPath {
				t.Errorf("Path = %q, want %q", ie.Path, wantPath)
			}
			if want := sprintf(tt.message, wantPath); ie.Error() != want {
				t.Errorf("Error() = %q, want %q", ie.Error(), want)
			}
		})
	}
}

func TestInitWhileLocked(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	if err := s.AppendEvent(testEvent(1)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(statePath(root, HeartbeatFile)); err != nil {
		t.Fatal(err)
	}
	res, err := Init(root, testNow)
	if err != nil {
		t.Fatalf("Init while locked: %v", err)
	}
	if want := []string{"state/" + HeartbeatFile}; !slices.Equal(res.Created, want) {
		t.Errorf("Created = %v, want %v", res.Created, want)
	}
	if got := readFile(t, statePath(root, EventsFile)); string(got) != string(testLine(t, 1)) {
		t.Errorf("Init touched events.jsonl: %q", got)
	}
}

func TestInitStateCreatesOnlyTheStateFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	res, err := InitState(root, testNow)
	if err != nil {
		t.Fatalf("InitState: %v", err)
	}
	want := []string{"state", "state/pipeline_state.json", "state/heartbeat_status.json", "state/process_leases.json", "state/events.jsonl"}
	if !slices.Equal(res.Created, want) {
		t.Errorf("created %v, want %v", res.Created, want)
	}
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 || entries[0].Name() != StateDir {
		t.Errorf("root holds %v (%v), want only state/", entries, err)
	}
}
