//go:build unix

package hooks

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a new process group and makes the
// context's end kill the whole group, so that a hook script's children
// (a shell's sleep, say) die with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return signalGroup(cmd) }
}

// killProcessGroup kills what is left of cmd's group once cmd has been
// waited for. The group id cannot have been reused while members remain,
// and signalling an empty group is harmless.
func killProcessGroup(cmd *exec.Cmd) { _ = signalGroup(cmd) }

func signalGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
