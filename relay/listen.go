package relay

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Listen opens the relay socket of root for a server: it makes the
// private socket folder, replaces a stale socket left by a dead server
// (never a live one: that is ErrServerRunning), and records the socket's
// path in <root>/state/run/socket-path for clients. <root>/state must
// exist; relay does not create the ledger. Closing the listener removes
// the socket file.
//
// Exactly one server per root is the controller's file lock's job: two
// servers racing for one stale socket could both replace it.
func Listen(root string) (*net.UnixListener, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("relay: listen: %w", err)
	}
	if _, err := os.Stat(filepath.Join(abs, stateDirName)); err != nil {
		return nil, fmt.Errorf("relay: listen: %w", err)
	}
	if err := ensurePrivateDir(filepath.Join(abs, stateDirName, runDirName)); err != nil {
		return nil, err
	}
	path, err := SocketPath(abs)
	if err != nil {
		return nil, err
	}
	if err := ensurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	l, err := ListenSocket(path)
	if err != nil {
		return nil, err
	}
	if err := writeRecord(abs, path); err != nil {
		_ = l.Close()
		return nil, err
	}
	return l, nil
}

// ListenSocket listens on a unix socket at path, with mode 0600. A socket
// file that nobody answers on (connection refused) is stale and replaced;
// one that answers means a live server, and ListenSocket returns
// ErrServerRunning. A file there that is not a socket is left alone and is
// an error. The folder is the caller's business: Listen makes it private.
func ListenSocket(path string) (*net.UnixListener, error) {
	l, err := listenUnix(path)
	if errors.Is(err, syscall.EADDRINUSE) {
		if err := removeStale(path); err != nil {
			return nil, err
		}
		l, err = listenUnix(path)
	}
	if err != nil {
		return nil, fmt.Errorf("relay: listen %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("relay: listen %s: %w", path, err)
	}
	return l, nil
}

func listenUnix(path string) (*net.UnixListener, error) {
	return net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
}

// removeStale removes the socket at path if no server answers on it.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("relay: listen %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("relay: listen %s: %w", path, syscall.EADDRINUSE)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		_ = c.Close()
		return fmt.Errorf("relay: listen %s: %w", path, ErrServerRunning)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		// Cannot tell whether a server is there: leave it be.
		return fmt.Errorf("relay: listen %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("relay: listen %s: %w", path, err)
	}
	return nil
}
