//go:build unix

package outbox

import (
	"os"
	"syscall"
)

// fileLock serializes the processes that write one mirror (Leads, the
// CLI): a sync and a write-through must not interleave, or a change a
// Lead made would be read back as a stranger's.
type fileLock struct{ f *os.File }

func openFileLock(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	return &fileLock{f: f}, nil
}

func (l *fileLock) lock() error {
	for {
		err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func (l *fileLock) unlock() { _ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) }

func (l *fileLock) close() error { return l.f.Close() }
