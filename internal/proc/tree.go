package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// Tree is a started child and everything it starts.
type Tree struct {
	cmd    *exec.Cmd
	pid    int
	marker string // EnvMarker's value
	cg     *cgroup
	// killed: Kill ran, which swept the marked processes (no cgroup).
	killed atomic.Bool
}

// Start starts cmd as the root of a tree: in a process group of its own,
// in a cgroup of its own where the kernel lets us, with the marker and
// ctx's step environment (see WithStep) added to cmd.Env (os.Environ()
// when nil). cmd must come from exec.Command, not CommandContext: the
// tree, not exec, decides how it dies. The caller waits for cmd
// (cmd.Wait) and then calls Release.
func Start(ctx context.Context, cmd *exec.Cmd) (*Tree, error) {
	j := jobOf(ctx)
	marker := j.scope.id + "/" + cleanLabel(j.label) + "/" + j.scope.token()
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append(env[:len(env):len(env)], j.env...), EnvMarker+"="+marker)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A group of its own lets one signal reach the child and everything
	// it started, and keeps the terminal's Ctrl-C away from it.
	cmd.SysProcAttr.Setpgid = true
	t := &Tree{cmd: cmd, marker: marker}
	cg := newCgroup(j.scope, marker)
	if cg != nil {
		intoCgroup(cmd.SysProcAttr, cg)
	}
	err := cmd.Start()
	if err != nil && cg != nil && cgroupRefused(err) {
		// The kernel or a seccomp filter may have refused the start into
		// a cgroup (clone3). If a start without one works, start without,
		// as everywhere else, from now on; else the error was the
		// command's (a file that is not executable, say).
		cg.remove()
		cg = nil
		*cmd = *restartable(cmd)
		if err = cmd.Start(); err == nil {
			disableCgroups()
		}
	}
	if err != nil {
		if cg != nil {
			cg.remove()
		}
		return nil, err
	}
	t.pid, t.cg = cmd.Process.Pid, cg
	return t, nil
}

// restartable is a Cmd that has not been started, with cmd's settings
// (a Cmd whose Start failed cannot be started again), and without the
// cgroup.
func restartable(cmd *exec.Cmd) *exec.Cmd {
	attr := *cmd.SysProcAttr
	attr.UseCgroupFD, attr.CgroupFD = false, 0
	return &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Stdin: cmd.Stdin,
		Stdout: cmd.Stdout, Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles, SysProcAttr: &attr,
		WaitDelay: cmd.WaitDelay, Err: cmd.Err}
}

// PID returns the child's pid, which is also its process group id.
func (t *Tree) PID() int { return t.pid }

// Signal sends sig to the child's process group and, in a cgroup, to
// every process of the tree (a descendant in a session of its own gets
// the chance to end cleanly too).
func (t *Tree) Signal(sig syscall.Signal) {
	_ = syscall.Kill(-t.pid, sig)
	if t.cg != nil {
		t.cg.signal(sig)
	}
}

// Kill kills the whole tree: the process group, and the cgroup or the
// marked descendants that became the subreaper's children. Call it
// before the child is reaped (cmd.Wait), while its exited leader still
// pins the group id: after that, the id could name someone else's group.
func (t *Tree) Kill() {
	_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	if t.cg != nil {
		t.cg.kill()
		return
	}
	t.killed.Store(true)
	sweepOrphans(t.marker, t.pid)
}

// Release, once cmd was waited for, kills whatever of the tree is still
// alive outside its (now unpinned) group and removes its cgroup. Without
// a cgroup, a tree that Kill swept after its leader's exit is not swept
// again (a scan of /proc each).
func (t *Tree) Release() {
	if t.cg != nil {
		t.cg.removeWhenEmpty()
		return
	}
	if !t.killed.Load() {
		sweepOrphans(t.marker, t.pid)
	}
}

// errno returns err's errno, or 0.
func errno(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}
