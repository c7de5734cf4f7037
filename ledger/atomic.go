package ledger

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempInfix marks the store's temporary files: "." + name + ".tmp-" +
// random hex. The leading dot lets watchers and listings ignore them.
const tempInfix = ".tmp-"

// IsTempName reports whether a file name in state/ is one of the store's
// temporary files, which watchers and readers ignore.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempInfix)
}

// writeTemp writes data to a new temporary file next to dir/name and
// syncs it. The caller renames or links it into place and must remove it
// on failure. The mode is 0644 before the umask, like the Python tool's
// files.
func writeTemp(dir, name string, data []byte) (string, error) {
	var (
		f    *os.File
		path string
		err  error
	)
	for range 8 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		path = filepath.Join(dir, "."+name+tempInfix+hex.EncodeToString(b[:]))
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("create temp file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write temp file: %w", err)
	}
	return path, nil
}

// replaceFile atomically replaces dir/name with data: a reader sees the
// old bytes or the new bytes, never a mix, and after a crash the file is
// one of the two. The rename is made durable by syncing the folder.
func replaceFile(dir, name string, data []byte) error {
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("rename into place: %w", err)
	}
	return syncDir(dir)
}

// errAlreadyExists is returned by createExclusive when the name is taken.
var errAlreadyExists = errors.New("already exists")

// createExclusive creates dir/name with data unless the name exists. A
// hard link from a complete temp file publishes the content at once and,
// unlike rename, refuses to replace an existing file, so a concurrent
// writer's file is never clobbered.
func createExclusive(dir, name string, data []byte) error {
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	err = os.Link(tmp, filepath.Join(dir, name))
	_ = os.Remove(tmp)
	if errors.Is(err, fs.ErrExist) {
		return errAlreadyExists
	}
	if err != nil {
		return fmt.Errorf("link into place: %w", err)
	}
	return syncDir(dir)
}

// syncDir makes renames, links and creations inside dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync dir: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync dir: %w", err)
	}
	return nil
}

// removeTempFiles deletes temp files a crashed writer left in dir and
// returns their names.
func removeTempFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list state dir: %w", err)
	}
	var removed []string
	for _, e := range entries {
		if e.IsDir() || !IsTempName(e.Name()) {
			continue
		}
		err := os.Remove(filepath.Join(dir, e.Name()))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove temp file: %w", err)
		}
		removed = append(removed, e.Name())
	}
	return removed, nil
}
