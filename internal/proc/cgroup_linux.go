package proc

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// EnvCgroup, set to "off" in the controller's environment, keeps
// children out of cgroups (the subreaper and marker sweep track them
// instead).
const EnvCgroup = "DAOKIT_CGROUP"

// cgroups is where this process may make cgroups: the cgroup v2 folder
// it runs in, found once; "" when there is none it may write.
var cgroups struct {
	once sync.Once
	base string
	off  atomic.Bool
	// checked: a cgroup made here had cgroup.kill.
	checked atomic.Bool
}

// cgroupBase returns the folder under which the scopes' cgroups go, or
// "" when children cannot be put into cgroups here.
func cgroupBase() string {
	cgroups.once.Do(func() { cgroups.base = probeCgroup() })
	if cgroups.off.Load() {
		return ""
	}
	return cgroups.base
}

// probeCgroup finds this process's own cgroup v2 folder: the cgroup2
// mount (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
// system) joined with the path in /proc/self/cgroup, when this process
// may write there.
func probeCgroup() string {
	if os.Getenv(EnvCgroup) == "off" {
		return ""
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var rel string
	found := false
	for line := range strings.SplitSeq(string(own), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	mount := cgroup2Mount()
	if !found || mount == "" {
		return ""
	}
	base := filepath.Join(mount, rel)
	if unix.Access(base, unix.W_OK) != nil {
		return ""
	}
	return base
}

// cgroup2Mount returns where the cgroup v2 hierarchy is mounted, or "".
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 36 35 0:30 / /sys/fs/cgroup rw,... shared:9 - cgroup2 cgroup2 rw
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if f := strings.Fields(pre); len(f) >= 5 {
			return f[4]
		}
	}
	return ""
}

// disableCgroups stops putting children into cgroups, for good: the
// kernel refused a start into one. A subreaper that was asked for takes
// over.
func disableCgroups() {
	cgroups.off.Store(true)
	if wantSubreaper.Load() {
		becomeSubreaper()
	}
}

// cgroup is one tree's cgroup.
type cgroup struct {
	dir string
	fd  int // open while the cgroup exists: a start into it needs one
	// scope is the cgroup's; a cgroup of this process's own scope is not
	// kept for reuse, and its folder goes with its last tree (no Close
	// removes it).
	scope *Scope
	// killed: cgroup.kill was written. Such a cgroup is never reused:
	// Linux 6.18 kills a child that clone3 starts into a cgroup killed
	// before (its kill sequence differs from the parent's), where moving
	// a process in would not.
	killed atomic.Bool
	// empty: kill found no process left, which stays so (nothing of the
	// tree is alive to fork): removeWhenEmpty need not look again.
	empty atomic.Bool
}

// maxIdle is how many emptied cgroups a scope keeps for reuse: about as
// many as trees end at once.
const maxIdle = 4

// scopeDir is the folder of a scope's cgroups.
func scopeDir(base string, s *Scope) string { return filepath.Join(base, "daokit-"+s.id) }

// newCgroup makes the cgroup of a tree whose marker is given, or returns
// nil when there can be none.
func newCgroup(s *Scope, marker string) *cgroup {
	base := cgroupBase()
	if base == "" {
		return nil
	}
	if s != ownScope {
		s.mu.Lock()
		if n := len(s.idle); n > 0 {
			cg := s.idle[n-1]
			s.idle = s.idle[:n-1]
			s.mu.Unlock()
			return cg
		}
		s.mu.Unlock()
	}
	parent := scopeDir(base, s)
	_, name, _ := strings.Cut(marker, "/")
	dir := filepath.Join(parent, strings.ReplaceAll(name, "/", "."))
	var err error
	// The scope's folder goes with its last tree (Release): make it
	// again, and again should a Release remove it meanwhile.
	for range 3 {
		if err = os.Mkdir(dir, 0o755); !os.IsNotExist(err) {
			break
		}
		if err = os.Mkdir(parent, 0o755); err != nil && !os.IsExist(err) {
			break
		}
	}
	if err != nil {
		if os.IsPermission(err) || errno(err) == unix.EROFS {
			// Not ours to write (a read-only or foreign cgroup tree).
			cgroups.off.Store(true)
		}
		return nil
	}
	if !cgroups.checked.Load() {
		// cgroup.kill came with Linux 5.14; without it a tree cannot be
		// killed whole.
		if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
			_ = os.Remove(dir)
			cgroups.off.Store(true)
			return nil
		}
		cgroups.checked.Store(true)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd, scope: s}
}

// intoCgroup makes the child start inside cg (clone3 CLONE_INTO_CGROUP),
// so that not even its first fork escapes it.
func intoCgroup(a *syscall.SysProcAttr, cg *cgroup) {
	a.UseCgroupFD, a.CgroupFD = true, cg.fd
}

// cgroupRefused reports whether a start into a cgroup may have failed
// because of the cgroup (clone3 missing or filtered, no permission).
func cgroupRefused(err error) bool {
	switch errno(err) {
	case unix.ENOSYS, unix.EPERM, unix.EACCES, unix.EINVAL, unix.EBUSY, unix.EOPNOTSUPP, unix.EROFS:
		return true
	}
	return false
}

// signal sends sig to every process in the cgroup.
func (cg *cgroup) signal(sig syscall.Signal) {
	procs, err := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for f := range strings.FieldsSeq(string(procs)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// kill kills every process in the cgroup, wherever its group or session,
// unless none is left (the common case at a child's exit: reading
// cgroup.events is cheaper than a kill).
func (cg *cgroup) kill() {
	var buf [128]byte
	if n := readSmall(filepath.Join(cg.dir, "cgroup.events"), buf[:]); bytes.Contains(buf[:n], []byte("populated 0")) {
		cg.empty.Store(true)
		return
	}
	cg.killed.Store(true)
	writeSmall(filepath.Join(cg.dir, "cgroup.kill"), "1")
}

// readSmall reads the start of a small kernel file into buf with plain
// system calls (an os.File costs a stat and a poller registration more)
// and returns how many bytes it read.
func readSmall(path string, buf []byte) int {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	n, err := unix.Read(fd, buf)
	if err != nil {
		return 0
	}
	return n
}

// writeSmall writes s to a kernel file with plain system calls.
func writeSmall(path, s string) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	_, _ = unix.Write(fd, []byte(s))
	_ = unix.Close(fd)
}

// remove removes the cgroup, and the scope's folder with its last tree
// (another tree keeps it busy): none is left behind when the process
// ends.
func (cg *cgroup) remove() {
	if cg.fd >= 0 {
		_ = unix.Close(cg.fd)
		cg.fd = -1
	}
	removeCgroup(cg.dir)
	if cg.scope == ownScope {
		_ = unix.Rmdir(filepath.Dir(cg.dir))
	}
}

// removeCgroup removes the cgroup at dir and, when it has some, the
// cgroups below it (a Lead's tree holds its Workers' cgroups), deepest
// first.
func removeCgroup(dir string) {
	if err := unix.Rmdir(dir); err != unix.EBUSY && err != unix.ENOTEMPTY {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeCgroup(filepath.Join(dir, e.Name()))
		}
	}
	_ = unix.Rmdir(dir)
}

// cgroupEmptyWait bounds how long removeWhenEmpty waits for killed
// processes to be gone; a cgroup still busy then is left for the next
// sweep.
const cgroupEmptyWait = 2 * time.Second

// removeWhenEmpty kills what is left in the cgroup and, once no process
// is left in it (waiting on cgroup.events: the kernel wakes a poll on it
// when "populated" changes), keeps it for the scope's next tree or
// removes it.
func (cg *cgroup) removeWhenEmpty() {
	if cg.empty.Load() && cg.keep() {
		return
	}
	fd, err := unix.Open(filepath.Join(cg.dir, "cgroup.events"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		cg.remove()
		return
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(cgroupEmptyWait)
	var buf [128]byte
	killed := false
	for {
		n, err := unix.Pread(fd, buf[:], 0)
		if err != nil || n <= 0 {
			break
		}
		if bytes.Contains(buf[:n], []byte("populated 0")) {
			if cg.keep() {
				return
			}
			break
		}
		if !killed {
			cg.killed.Store(true)
			writeSmall(filepath.Join(cg.dir, "cgroup.kill"), "1")
			killed = true
			continue
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
		if _, err := unix.Poll(fds, int(left.Milliseconds())+1); err != nil && err != unix.EINTR {
			break
		}
	}
	cg.remove()
}

// pruneDead removes, in every scope but s, the empty cgroups whose
// maker is dead, and the scope folders that leaves empty. It never kills
// anything: a cgroup with a process in it stays.
func pruneDead(base string, s *Scope) {
	scopes, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, sc := range scopes {
		if !sc.IsDir() || !strings.HasPrefix(sc.Name(), "daokit-") || sc.Name() == "daokit-"+s.id {
			continue
		}
		dir := filepath.Join(base, sc.Name())
		kids, _ := os.ReadDir(dir)
		for _, k := range kids {
			i := strings.LastIndexByte(k.Name(), '.')
			if !k.IsDir() || i < 0 {
				continue
			}
			pid, _, _ := strings.Cut(k.Name()[i+1:], "-")
			n, err := strconv.Atoi(pid)
			if err != nil || n <= 0 || unix.Kill(n, 0) != unix.ESRCH {
				continue
			}
			var buf [128]byte
			path := filepath.Join(dir, k.Name())
			if m := readSmall(filepath.Join(path, "cgroup.events"), buf[:]); bytes.Contains(buf[:m], []byte("populated 0")) {
				removeCgroup(path)
			}
		}
		_ = unix.Rmdir(dir)
	}
}

// keep hands an empty cgroup to its scope for the next tree, and reports
// whether the scope took it: not one of the process's own scope, nor one
// that was killed, nor more than maxIdle.
func (cg *cgroup) keep() bool {
	s := cg.scope
	if s == ownScope || cg.fd < 0 || cg.killed.Load() {
		return false
	}
	cg.empty.Store(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.idle) >= maxIdle {
		return false
	}
	s.idle = append(s.idle, cg)
	return true
}

// sweepCgroups kills and removes the cgroups of s that another process
// (an earlier controller) left, and returns how many there were. It also
// removes the empty cgroups dead processes left in other scopes (a
// SIGKILLed controller's kept ones, of a root nobody opens again).
func sweepCgroups(s *Scope) int {
	base := cgroupBase()
	if base == "" {
		return 0
	}
	pruneDead(base, s)
	dir := scopeDir(base, s)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndexByte(name, '.')
		if !e.IsDir() || i < 0 || ownToken(name[i+1:]) {
			continue
		}
		cg := &cgroup{dir: filepath.Join(dir, name), fd: -1}
		cg.kill()
		cg.removeWhenEmpty()
		n++
	}
	return n
}
