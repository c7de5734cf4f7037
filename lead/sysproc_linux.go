package lead

import (
	"os"
	"syscall"
)

// workerSysProcAttr puts a Worker in a process group of its own (so it
// can be stopped as a whole), kills it if the Lead dies, and, when it
// runs through the guard, in a mount namespace of its own (a user
// namespace too when the Lead is not root) where the guard can mount
// the outbox and memory read-only.
func workerSysProcAttr(guarded bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if !guarded {
		return a
	}
	a.Unshareflags = syscall.CLONE_NEWNS
	if os.Geteuid() != 0 {
		a.Cloneflags = syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	return a
}
