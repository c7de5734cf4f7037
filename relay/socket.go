package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/daokit/daokit/ledger"
)

// Where the socket lives, relative to the ledger root. run/ is private
// (0700) so that no other user can even reach the socket, whatever the
// socket's own mode was between bind and chmod.
const (
	stateDirName = "state"
	runDirName   = "run"
	socketName   = "relay.sock"
	// recordName is the one file relay writes in the ledger folder: where
	// the server's socket actually is.
	recordName = "socket-path"
)

// SocketPath returns where a server for root listens:
// <root>/state/run/relay.sock, or, when that path is too long for a unix
// socket address (sun_path, 108 bytes on Linux), relay-<hash of root>.sock
// in a private per-user folder: $XDG_RUNTIME_DIR/daokit, else
// $TMPDIR/daokit-<uid>, else /tmp/daokit-<uid>. It creates nothing.
func SocketPath(root string) (string, error) {
	return planSocket(root, os.Getenv, os.Getuid())
}

// planSocket is SocketPath with the environment and the uid as arguments,
// so that tests can steer the fallback.
func planSocket(root string, getenv func(string) string, uid int) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("relay: socket path: %w", err)
	}
	primary := filepath.Join(abs, stateDirName, runDirName, socketName)
	if fitsSunPath(primary) {
		return primary, nil
	}
	sum := sha256.Sum256([]byte(abs))
	name := "relay-" + hex.EncodeToString(sum[:8]) + ".sock"
	for _, dir := range runtimeDirs(getenv, uid) {
		if p := filepath.Join(dir, name); fitsSunPath(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("relay: socket path: no folder short enough for %s", name)
}

// runtimeDirs lists the per-user folders for a fallback socket, best first.
// A variable naming a folder that does not exist (XDG_RUNTIME_DIR survives
// su and sudo) is passed over.
func runtimeDirs(getenv func(string) string, uid int) []string {
	var dirs []string
	if x := getenv("XDG_RUNTIME_DIR"); isDir(x) {
		dirs = append(dirs, filepath.Join(x, "daokit"))
	}
	user := "daokit-" + strconv.Itoa(uid)
	if t := getenv("TMPDIR"); isDir(t) {
		dirs = append(dirs, filepath.Join(t, user))
	}
	return append(dirs, filepath.Join("/tmp", user))
}

// isDir reports whether p is an absolute path to an existing folder.
func isDir(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// fitsSunPath reports whether p fits a unix socket address with its NUL.
func fitsSunPath(p string) bool { return len(p) < sunPathLen }

// socketRecord is the content of <root>/state/run/socket-path.
type socketRecord struct {
	V      int    `json:"v"`
	Root   string `json:"root"`
	Socket string `json:"socket"`
}

// ResolveSocket returns the socket a client of root should dial: the path
// the running server recorded in <root>/state/run/socket-path (its
// environment may differ from the client's), else SocketPath(root). A
// record written for another root (the tree was copied or moved) is
// ignored.
func ResolveSocket(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("relay: resolve socket: %w", err)
	}
	if rec, ok := readRecord(abs); ok {
		return rec.Socket, nil
	}
	return SocketPath(abs)
}

// readRecord returns the record of root if it is usable.
func readRecord(abs string) (socketRecord, bool) {
	var rec socketRecord
	data, err := readSmallFile(filepath.Join(abs, stateDirName, runDirName, recordName))
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return rec, false
	}
	if rec.V != 1 || !filepath.IsAbs(rec.Socket) || !fitsSunPath(rec.Socket) || !sameDir(rec.Root, abs) {
		return rec, false
	}
	return rec, true
}

// writeRecord replaces the record atomically, so a client never reads half
// of it.
func writeRecord(abs, socket string) error {
	data, err := json.Marshal(socketRecord{V: 1, Root: abs, Socket: socket})
	if err != nil {
		return fmt.Errorf("relay: write socket record: %w", err)
	}
	// The ledger's one atomic writer: a client never reads half a
	// record, and a link planted at the record is replaced, not followed.
	if err := ledger.ReplaceFilePerm(filepath.Join(abs, stateDirName, runDirName), recordName, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("relay: write socket record: %w", err)
	}
	return nil
}

// sameDir reports whether a and b name the same folder, symlinks and bind
// mounts included.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// ensurePrivateDir makes dir (not its parents) if needed, and checks that it
// is a real folder of ours that nobody else can enter: not a symlink (which
// another user could point elsewhere), owned by us, mode 0700.
func ensurePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("relay: socket folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("relay: socket folder: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &UnsafeDirError{Path: dir, Reason: "symlink"}
	case !fi.IsDir():
		return &UnsafeDirError{Path: dir, Reason: "not_dir"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return &UnsafeDirError{Path: dir, Reason: "owner"}
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("relay: socket folder: %w", err)
		}
	}
	return nil
}

// recordMax bounds what readRecord reads; a record is one short line.
const recordMax = 8 << 10

// readSmallFile reads a regular file of at most recordMax bytes. It never
// follows a link at the last element and never blocks on a FIFO, so a
// planted state/run/socket-path cannot hang `send` or `status`.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > recordMax {
		return nil, fmt.Errorf("%s: not a socket record", path)
	}
	return io.ReadAll(io.LimitReader(f, recordMax))
}
