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
//
// The same files may also be reachable through another mount of their
// file system (a bind mount of the project elsewhere): each such alias
// is made read-only or hidden too.
func confine(g GuardPaths) error {
	mounts, err := readMountinfo()
	if err != nil {
		return err
	}
	for _, p := range g.ReadOnly {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		for _, q := range withAliases(mounts, p) {
			if err := bindReadOnly(q); err != nil {
				return err
			}
		}
	}
	for _, p := range g.Hidden {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		for _, q := range withAliases(mounts, p) {
			if err := hide(q); err != nil {
				return err
			}
		}
	}
	return mountProc()
}

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	dev   string // major:minor
	root  string // the mount's root within its file system
	point string // where it is mounted
}

func readMountinfo() ([]mountEntry, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	var out []mountEntry
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		out = append(out, mountEntry{dev: f[2], root: unescapeMountinfo(f[3]), point: unescapeMountinfo(f[4])})
	}
	return out, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// withAliases is p (symlinks resolved) and every other path that reaches
// the same file through another mount of its file system.
func withAliases(mounts []mountEntry, p string) []string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return []string{p}
	}
	out := []string{real}
	// The mount p is reached through: the last one mounted at the longest
	// prefix of p.
	var home *mountEntry
	for i := range mounts {
		m := &mounts[i]
		if within(real, m.point) && (home == nil || len(m.point) >= len(home.point)) {
			home = m
		}
	}
	if home == nil {
		return out
	}
	inFS := filepath.Join(home.root, strings.TrimPrefix(real, home.point))
	want, err := os.Stat(real)
	if err != nil {
		return out
	}
	for _, m := range mounts {
		if m.dev != home.dev || !within(inFS, m.root) {
			continue
		}
		alias := filepath.Join(m.point, strings.TrimPrefix(inFS, m.root))
		if within(alias, real) {
			continue // p itself, or a mount of the same files inside p
		}
		// Only where the alias is the same file (not covered by another
		// mount): that is what a Worker could open.
		if fi, err := os.Stat(alias); err == nil && os.SameFile(fi, want) && !contains(out, alias) {
			out = append(out, alias)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
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
