package lead

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// guardSupported reports whether Workers can be guarded on this system.
const guardSupported = true

// exitGuardSetup is the exit code of a guard that could not set up its
// namespaces: the Worker did not run.
const exitGuardSetup = 125

// Guard runs argv as a guarded Worker and returns its exit code; it
// refuses to run argv unguarded (any step that fails is an error, and
// argv never starts).
//
// The Lead starts the guard as PID 1 of new user, mount and PID
// namespaces (see workerSysProcAttr), where it is root. There it binds
// g.ReadOnly read-only and covers g.Hidden with empty read-only folders,
// mounts a /proc of the new PID namespace over the old one (no process
// outside is visible, so none can be reached through /proc/PID/root),
// and makes itself undumpable (the Worker cannot ptrace it or read its
// /proc entries). Then it starts argv in a further user and mount
// namespace: the mounts it inherits there come from a more privileged
// namespace, so the kernel locks them: they cannot be unmounted, nor
// made writable again, even by the Worker's root there. The guard stays
// as the namespace's init, reaping orphans and passing signals on; when
// argv exits, the guard exits with its status, and the kernel kills
// whatever argv left running in the namespace.
func Guard(g GuardPaths, argv []string, env []string) (int, error) {
	if len(argv) == 0 {
		return exitGuardSetup, errors.New("guard: no command")
	}
	if os.Getpid() != 1 {
		// Outside namespaces of its own the mounts below would change the
		// caller's system: refuse.
		return exitGuardSetup, errors.New("guard: not in a PID namespace of its own (only a Lead starts the guard)")
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return exitGuardSetup, fmt.Errorf("guard: undumpable: %w", err)
	}
	if err := confine(g); err != nil {
		return exitGuardSetup, err
	}
	// The working folder was resolved before the mounts: enter it again,
	// so that the Worker's relative paths go through them too.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return exitGuardSetup, fmt.Errorf("guard: working folder: %w", err)
		}
	}
	return runInit(argv, env)
}

// ProbeGuard sets up the guard's namespaces and mounts without running a
// Worker: nil when Workers can be guarded here.
func ProbeGuard() error {
	if os.Getenv(probeChildEnv) != "" {
		return nil // the probe's own child, in the further namespaces
	}
	if os.Getpid() != 1 {
		return errors.New("guard: not in a PID namespace of its own")
	}
	if err := mountProc(); err != nil {
		return err
	}
	attr, err := nestedAttr()
	if err != nil {
		return err
	}
	p, err := os.StartProcess("/proc/self/exe", os.Args, &os.ProcAttr{Sys: attr, Env: append(os.Environ(), probeChildEnv+"=1")})
	if err != nil {
		return fmt.Errorf("guard: nested namespace: %w", err)
	}
	st, err := p.Wait()
	if err == nil && !st.Success() {
		err = fmt.Errorf("guard: nested namespace: %s", st)
	}
	return err
}

// probeChildEnv marks the process ProbeGuard starts in the further
// namespaces: it only has to start.
const probeChildEnv = "DAOKIT_GUARD_PROBE_CHILD"
