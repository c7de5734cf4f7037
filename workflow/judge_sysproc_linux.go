package workflow

import "syscall"

// judgeSysProcAttr puts the judge command in a process group of its own
// and has the kernel kill it when the controller dies: its exit status
// can only reach its parent, so a judge that outlived a dead controller
// would finish with nobody to record its decision, and the successor
// would run it again. Killed with the controller, it never finished.
func judgeSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
