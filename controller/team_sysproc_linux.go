package controller

import "syscall"

// leadSysProcAttr gives a Lead a process group of its own (stopped as a
// whole) and ends it if the controller dies, so that no Lead outlives
// its supervisor by surprise; a successor also fences leftovers.
func leadSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
