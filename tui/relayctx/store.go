// Package relayctx is the window's relay context: what the person asked,
// what the controller answered, status reports, execution logs, failure
// noise, error dumps and evidence paths, kept short by the compact
// package. The window records entries as they arrive, asks after each
// change whether to compact, compacts in a command (compaction is pure),
// and persists the result to a file that only the window writes.
package relayctx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FileName is the relay context's file in <root>/state/. The controller
// and the watchers ignore it: it is not part of the ledger.
const FileName = "relay_context.json"

// Store keeps the relay context between runs of the window.
type Store interface {
	// Load returns the saved context, or nil and no error when there is
	// none yet.
	Load(ctx context.Context) ([]byte, error)
	// Save replaces the saved context atomically: a reader (or a crash)
	// sees the old bytes or the new ones, never a mix.
	Save(ctx context.Context, data []byte) error
}

// FileStore keeps the context in one file, replaced by rename.
type FileStore struct {
	Path string
}

var _ Store = FileStore{}

// Load implements Store.
func (s FileStore) Load(context.Context) ([]byte, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load relay context: %w", err)
	}
	return data, nil
}

// Save implements Store: temp file in the same folder, fsync, rename,
// fsync of the folder. The temp name starts with a dot and contains
// ".tmp-", the ledger's temp-file pattern, so that watchers skip it.
func (s FileStore) Save(_ context.Context, data []byte) error {
	dir, name := filepath.Split(s.Path)
	if dir == "" {
		dir = "."
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(dir, "."+name+".tmp-"+hex.EncodeToString(b[:]))
	if err := writeSynced(tmp, data); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save relay context: %w", err)
	}
	if err := os.Rename(tmp, s.Path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save relay context: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("save relay context: %w", err)
	}
	return nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
