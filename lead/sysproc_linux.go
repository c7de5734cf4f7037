package lead

import (
	"os"
	"syscall"
)

// workerSysProcAttr puts a Worker in a process group of its own (so it
// can be stopped as a whole) and kills it if the Lead dies. When it runs
// through the guard, it starts in new user, mount and PID namespaces
// (even for a root Lead: a Worker must not hold its capabilities over the
// Lead's mounts and processes), with the Lead's uid and gid as root
// there: a non-root Lead's one uid, a root Lead's every uid mapped onto
// itself (the Worker keeps access to files of other users in its repo).
func workerSysProcAttr(guarded bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if !guarded {
		return a
	}
	a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	if os.Geteuid() == 0 {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: allIDs}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: allIDs}}
		a.GidMappingsEnableSetgroups = true
		return a
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	return a
}

// allIDs is every uid (or gid) but the last, which the kernel reserves.
const allIDs = 1<<32 - 1
