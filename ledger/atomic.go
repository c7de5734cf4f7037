package ledger

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
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
// syncs it, returning the temp file's name. The caller renames or links
// it into place and must remove it on failure. The ledger's files are
// 0644 before the umask, like the Python tool's.
func writeTemp(dir *Dir, name string, data []byte) (string, error) {
	return writeTempPerm(dir, name, data, 0o644)
}

// writeTempPerm is writeTemp with the file's mode.
func writeTempPerm(dir *Dir, name string, data []byte, perm os.FileMode) (string, error) {
	tmp, _, err := writeTempID(dir, name, data, perm)
	return tmp, err
}

// writeTempID is writeTempPerm that also returns the identity of the
// written file, which a rename keeps (it changes no modification time).
func writeTempID(dir *Dir, name string, data []byte, perm os.FileMode) (string, FileIdentity, error) {
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 8 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		tmp = "." + name + tempInfix + hex.EncodeToString(b[:])
		f, err = dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", FileIdentity{}, fmt.Errorf("create temp file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	var st os.FileInfo
	if err == nil {
		st, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = dir.Remove(tmp)
		return "", FileIdentity{}, fmt.Errorf("write temp file: %w", err)
	}
	return tmp, FileIdentity{Exists: true, Size: int64(len(data)), MtimeNS: st.ModTime().UnixNano(), SHA256: hashHex(data)}, nil
}

// replaceFile atomically replaces dir/name with data: a reader sees the
// old bytes or the new bytes, never a mix, and after a crash the file is
// one of the two. The rename is made durable by syncing the folder. A
// link at name is replaced, not followed.
func replaceFile(dir *Dir, name string, data []byte) error {
	return replaceFilePerm(dir, name, data, 0o644)
}

// replaceFileID is replaceFile that returns the new file's identity, and
// whether it is in place (it is after a rename whose folder sync failed).
func replaceFileID(dir *Dir, name string, data []byte) (FileIdentity, bool, error) {
	tmp, id, err := writeTempID(dir, name, data, 0o644)
	if err != nil {
		return id, false, err
	}
	if err := dir.Rename(tmp, name); err != nil {
		_ = dir.Remove(tmp)
		return id, false, fmt.Errorf("rename into place: %w", err)
	}
	return id, true, dir.Sync()
}

// replaceFilePerm is replaceFile with the new file's mode.
func replaceFilePerm(dir *Dir, name string, data []byte, perm os.FileMode) error {
	tmp, err := writeTempPerm(dir, name, data, perm)
	if err != nil {
		return err
	}
	if err := dir.Rename(tmp, name); err != nil {
		_ = dir.Remove(tmp)
		return fmt.Errorf("rename into place: %w", err)
	}
	return dir.Sync()
}

// errAlreadyExists is returned by createExclusive when the name is taken.
var errAlreadyExists = errors.New("already exists")

// createExclusive creates dir/name with data unless the name exists. A
// hard link from a complete temp file publishes the content at once and,
// unlike rename, refuses to replace an existing file, so a concurrent
// writer's file is never clobbered.
func createExclusive(dir *Dir, name string, data []byte) error {
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	err = dir.Link(tmp, name)
	_ = dir.Remove(tmp)
	if errors.Is(err, fs.ErrExist) {
		return errAlreadyExists
	}
	if err != nil {
		return fmt.Errorf("link into place: %w", err)
	}
	return dir.Sync()
}

// removeTempFiles deletes temp files a crashed writer left in dir and
// returns their names.
func removeTempFiles(dir *Dir) ([]string, error) {
	names, err := dir.Names()
	if err != nil {
		return nil, fmt.Errorf("list state dir: %w", err)
	}
	slices.Sort(names)
	var removed []string
	for _, name := range names {
		if !IsTempName(name) {
			continue
		}
		err := dir.Remove(name)
		if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
			continue // a folder with a temp-like name is not ours
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove temp file: %w", err)
		}
		removed = append(removed, name)
	}
	return removed, nil
}
