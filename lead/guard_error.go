package lead

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// CheckGuard runs the guard of the prefix guard (GuardArgv) in probe
// mode, started the way a Worker is: nil when Workers can be guarded
// here, else a *GuardUnavailableError.
func CheckGuard(guard []string) error {
	if !guardSupported {
		return &roster.GuardUnavailableError{Err: errors.New("not Linux")}
	}
	argv := guard
	if n := len(argv); n > 0 && argv[n-1] == "--" {
		argv = argv[:n-1]
	}
	if len(argv) == 0 {
		return &roster.GuardUnavailableError{Err: errors.New("no guard command")}
	}
	cmd := exec.Command(argv[0], append(append([]string(nil), argv[1:]...), "--probe")...)
	cmd.Env = append(cmd.Environ(), outbox.WorkerEnv+"=probe")
	cmd.SysProcAttr = workerSysProcAttr(true)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.Process == nil {
		// The kernel refused the namespaces themselves.
		return guardStartError(true, err)
	}
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			err = errors.New(lastLine(msg))
		}
		return &roster.GuardUnavailableError{Err: err}
	}
	return nil
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// guardStartError is the error of a Worker that could not start: for a
// guarded one, that the system refused the guard's namespaces.
func guardStartError(guarded bool, err error) error {
	if !guarded {
		return err
	}
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EUSERS):
		return &roster.GuardUnavailableError{Err: fmt.Errorf("no user namespace can be made: switched off (user.max_user_namespaces = 0) or too many or too deep: %w", err)}
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return &roster.GuardUnavailableError{Err: fmt.Errorf("user namespaces are not allowed here (kernel.unprivileged_userns_clone, an AppArmor or seccomp policy, a container): %w", err)}
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS):
		return &roster.GuardUnavailableError{Err: fmt.Errorf("this kernel has no user, mount or PID namespaces: %w", err)}
	}
	return err
}
