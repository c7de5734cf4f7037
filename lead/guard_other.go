//go:build !linux

package lead

import (
	"errors"
	"syscall"
)

// GuardSupported reports whether Workers can be guarded on this system.
const GuardSupported = false

// ExitGuardSetup is the exit code of a guard that could not set up.
const ExitGuardSetup = 125

// Guard is Linux-only: elsewhere a Lead refuses to run Workers unless
// workflow.toml allows them unguarded.
func Guard(GuardPaths, []string, []string) (int, error) {
	return ExitGuardSetup, errors.New("guard: not supported on this system")
}

// ProbeGuard is Linux-only.
func ProbeGuard() error { return errors.New("guard: not supported on this system") }

func workerSysProcAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
