//go:build !linux

package lead

import (
	"errors"
	"syscall"
)

// GuardSupported reports whether Workers can be guarded on this system.
const GuardSupported = false

// Guard is Linux-only; elsewhere Workers are refused by outbox.WorkerEnv
// alone.
func Guard(readOnly []string, argv []string, env []string) error {
	return errors.New("guard: not supported on this system")
}

func workerSysProcAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
