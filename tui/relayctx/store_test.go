package relayctx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// The context file lives in state/: a link planted in its place is
// neither followed by Load nor written through by Save, a FIFO does not
// block Load, and the saved file is private to its user.
func TestFileStoreRefusesLinksAndFIFOs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	want := []byte("outside the root\n")
	if err := os.WriteFile(victim, want, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	s := FileStore{Path: path}
	if _, err := s.Load(context.Background()); !errors.Is(err, ledger.ErrSymlink) {
		t.Fatalf("Load through a link: %v, want ErrSymlink", err)
	}
	if err := s.Save(context.Background(), []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); !bytes.Equal(got, want) {
		t.Fatalf("victim changed: %q", got)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("saved file: %v, %v; want a regular file private to its user", fi.Mode(), err)
	}

	fifo := FileStore{Path: filepath.Join(dir, "fifo.json")}
	if err := syscall.Mkfifo(fifo.Path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := fifo.Load(context.Background()); !errors.Is(err, ledger.ErrNotRegular) {
		t.Fatalf("Load of a FIFO: %v, want ErrNotRegular", err)
	}
}
