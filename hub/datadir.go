package hub

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The files of a hub's data directory (see docs/deployment.en.md).
const (
	// StoreSubdir is where JetStream keeps its streams (nats-server
	// puts them under <data>/jetstream).
	StoreSubdir = "jetstream"
	// CredentialsFile is the administrator's nkey seed, 0600.
	CredentialsFile = "admin.nk"
	// lockFile is held (flock) while a hub runs on the directory: two
	// servers on one store would corrupt it.
	lockFile = "hub.lock"
)

// openDataDir creates dir (0700) if needed, proves it writable with a
// synced probe file, and takes its lock. The returned file holds the
// lock until it is closed.
func openDataDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &Error{Kind: KindDataDir, Subject: dir, Err: err}
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil, &Error{Kind: KindDataDir, Subject: dir, Err: err}
	}
	_, werr := probe.WriteString("daokit hub")
	if werr == nil {
		werr = probe.Sync()
	}
	probe.Close()
	os.Remove(probe.Name())
	if werr != nil {
		return nil, &Error{Kind: KindDataDir, Subject: dir, Err: werr}
	}
	lock, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, &Error{Kind: KindDataDir, Subject: dir, Err: err}
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &Error{Kind: KindDataDirInUse, Subject: dir}
		}
		return nil, &Error{Kind: KindDataDir, Subject: dir, Err: err}
	}
	return lock, nil
}
