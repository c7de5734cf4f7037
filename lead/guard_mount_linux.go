package lead

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// confine makes g's paths read-only and hidden, then mounts a /proc of
// the guard's PID namespace. Paths that do not exist are skipped:
// nothing there to protect.
func confine(g GuardPaths) error {
	for _, p := range g.ReadOnly {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := bindReadOnly(p); err != nil {
			return err
		}
	}
	for _, p := range g.Hidden {
		fi, err := os.Stat(p)
		if err != nil || !fi.IsDir() {
			continue
		}
		if err := hide(p); err != nil {
			return err
		}
	}
	return mountProc()
}

// bindReadOnly binds p onto itself with everything mounted under it, then
// makes each of those mounts read-only. A remount in a user namespace
// must keep the flags the mount was locked with (nosuid, nodev, noexec,
// atime), so each keeps its own.
func bindReadOnly(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("guard: %s: %w", p, err)
	}
	if err := unix.Mount(real, real, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("guard: bind %s: %w", real, err)
	}
	points, err := mountsUnder(real)
	if err != nil {
		return err
	}
	for _, m := range points {
		var st unix.Statfs_t
		if err := unix.Statfs(m, &st); err != nil {
			return fmt.Errorf("guard: read-only %s: %w", m, err)
		}
		flags := uintptr(unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY) | lockedFlags(st.Flags)
		if err := unix.Mount("", m, "", flags, ""); err != nil {
			return fmt.Errorf("guard: read-only %s: %w", m, err)
		}
	}
	return nil
}

// lockedFlags are the mount flags of statfs's f_flags that a remount must
// repeat.
func lockedFlags(f int64) uintptr {
	var out uintptr
	for st, ms := range map[int64]uintptr{
		unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME,
	} {
		if f&st != 0 {
			out |= ms
		}
	}
	return out
}

// hide covers the folder p with an empty read-only tmpfs.
func hide(p string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("guard: %s: %w", p, err)
	}
	if err := unix.Mount("daokit-guard", real, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
		return fmt.Errorf("guard: hide %s: %w", real, err)
	}
	return nil
}

// mountProc mounts a /proc of the calling process's PID namespace over
// /proc, where the old one showed every process of the system.
func mountProc() error {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("guard: mount /proc: %w", err)
	}
	return nil
}

// mountsUnder lists the mount points at p and below it, from
// /proc/self/mountinfo.
func mountsUnder(p string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		m := unescapeMountinfo(fields[4])
		if (m == p || strings.HasPrefix(m, p+"/") || p == "/") && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("guard: mountinfo: %w", err)
	}
	return out, nil
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
