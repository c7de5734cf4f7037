package lead

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// GuardSupported reports whether Workers can be guarded on this system.
const GuardSupported = true

// Guard makes each path read-only in the calling process's mount
// namespace (which the Lead created for it), then replaces the process
// with argv. It refuses to run argv unguarded: a mount that fails is an
// error, not a warning.
func Guard(readOnly []string, argv []string, env []string) error {
	for _, p := range readOnly {
		if _, err := os.Stat(p); err != nil {
			continue // nothing there to protect
		}
		if err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return fmt.Errorf("guard: bind %s: %w", p, err)
		}
		if err := syscall.Mount("", p, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("guard: read-only %s: %w", p, err)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, env)
}
