package ledger

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockHolder returns the pid of the process that holds the flock on
// root's lock file, as the kernel reports it in /proc/locks, or 0 when
// nobody holds it. Unlike the pid written into the file, this cannot be
// stale or forged: a successor uses it to decide whom to fence.
func LockHolder(root string) (int, error) {
	var st unix.Stat_t
	path := Layout{Root: root}.Path(LockFile)
	if err := unix.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("lock holder: %w", err)
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, fmt.Errorf("lock holder: %w", err)
	}
	defer f.Close()
	return findFlockHolder(bufio.NewScanner(f), unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
}

// findFlockHolder scans /proc/locks lines such as
//
//	1: FLOCK  ADVISORY  WRITE 11514 fe:00:9989076 0 EOF
//
// for a FLOCK on the given device and inode. Blocked waiters ("->")
// are not holders.
func findFlockHolder(sc *bufio.Scanner, major, minor uint32, ino uint64) (int, error) {
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		parts := strings.Split(fields[5], ":")
		if len(parts) != 3 {
			continue
		}
		maj, err1 := strconv.ParseUint(parts[0], 16, 32)
		mnr, err2 := strconv.ParseUint(parts[1], 16, 32)
		inode, err3 := strconv.ParseUint(parts[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || uint32(maj) != major || uint32(mnr) != minor || inode != ino {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil {
			continue
		}
		return pid, nil
	}
	return 0, sc.Err()
}
