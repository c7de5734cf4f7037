package ledger

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// fileLock is an exclusive flock(2) on the root's lock file. flock locks
// belong to the open file description, so a second Open in the same
// process conflicts just like one in another process, and the kernel
// drops the lock when the holder dies: a SIGKILLed controller never
// leaves a stale lock behind. Go opens files with O_CLOEXEC, so worker
// processes started by the holder do not inherit it.
type fileLock struct {
	f    *os.File
	path string
}

// acquireLock takes the lock without waiting. When another open file
// description holds it, the error is a *LockedError with the pid the
// holder wrote.
func acquireLock(dir *Dir) (*fileLock, error) {
	path := filepath.Join(dir.Path(), LockFile)
	f, err := dir.OpenFile(LockFile, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		pid := waitHolderPID(f)
		_ = f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &LockedError{Path: path, HolderPID: pid}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &fileLock{f: f, path: path}
	if err := l.writePID(); err != nil {
		_ = l.release()
		return nil, err
	}
	return l, nil
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// writePID records the holder so that a refused opener can say who holds
// the root. The pid is informational; the flock is the lock.
func (l *fileLock) writePID() error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write lock holder: %w", err)
	}
	if _, err := l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return fmt.Errorf("write lock holder: %w", err)
	}
	return nil
}

// release clears the pid and drops the lock. The file itself stays:
// deleting a lock file races with a concurrent opener that already holds
// a descriptor of it.
func (l *fileLock) release() error {
	_ = l.f.Truncate(0)
	err := flock(l.f, unix.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	return nil
}

// waitHolderPID reads the holder's pid, giving a holder that has just
// taken the lock a moment to write it, so that the loser of a start-up
// race can name the winner instead of saying "pid 0".
func waitHolderPID(f *os.File) int {
	deadline := time.Now().Add(holderPIDWait)
	for {
		if pid := readHolderPID(f); pid > 0 || time.Now().After(deadline) {
			return pid
		}
		time.Sleep(holderPIDWait / 20)
	}
}

// holderPIDWait bounds waitHolderPID.
const holderPIDWait = 200 * time.Millisecond

// readHolderPID returns the pid in the lock file, or 0 when the holder has
// not written it yet.
func readHolderPID(f *os.File) int {
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid < 1 {
		return 0
	}
	return pid
}
