// Package relayctx is the window's relay context: what the person asked,
// what the controller answered, status reports, execution logs, failure
// noise, error dumps and evidence paths, kept short by the compact
// package. The window records entries as they arrive, asks after each
// change whether to compact, compacts in a command (compaction is pure),
// and persists the result to a file that only the window writes.
package relayctx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/daokit/daokit/ledger"
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

// Load implements Store. The file sits in state/, so it is read like the
// ledger's files: a link, a FIFO or a folder in its place is refused
// (never followed, never blocked on), and a runaway size is too.
func (s FileStore) Load(context.Context) ([]byte, error) {
	data, err := ledger.ReadFile(s.Path, ledger.MaxDocumentBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load relay context: %w", err)
	}
	return data, nil
}

// Save implements Store with the ledger's one atomic writer (temp file
// in the same folder, fsync, rename, fsync of the folder; a link at the
// name is replaced, not followed). The file is private to its user: it
// holds what the person typed.
func (s FileStore) Save(_ context.Context, data []byte) error {
	dir, name := filepath.Split(s.Path)
	if dir == "" {
		dir = "."
	}
	if err := ledger.ReplaceFilePerm(dir, name, data, 0o600); err != nil {
		return fmt.Errorf("save relay context: %w", err)
	}
	return nil
}
