package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestTailObjects(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "snapshots.jsonl")
	content := `{"node":"bootstrap","n":1}` + "\n" +
		"not json\n" +
		"\n" +
		`{"node":"extract","n":2}` + "\n" +
		`{"node":"plan","n":3}` + "\n" +
		`{"node":"torn"`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := TailObjects(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Objects) != 2 || got.Objects[0].String("node") != "extract" || got.Objects[1].String("node") != "plan" {
		t.Fatalf("last 2: %+v", got.Objects)
	}
	all, _ := TailObjects(path, 10)
	if len(all.Objects) != 3 || all.Skipped != 1 || all.Objects[0].String("node") != "bootstrap" {
		t.Fatalf("all: %d objects, %d skipped", len(all.Objects), all.Skipped)
	}
	if _, err := TailObjects(filepath.Join(t.TempDir(), "none.jsonl"), 1); !errors.Is(err, ErrMissing) {
		t.Fatalf("missing file: got %v", err)
	}
}
