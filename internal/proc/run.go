package proc

import (
	"context"
	"os/exec"
	"time"
)

// DrainTimeout bounds how long a child's output is read after its tree
// died: a descendant nobody could kill (no cgroup, no subreaper) might
// hold the pipes open for ever.
const DrainTimeout = 500 * time.Millisecond

// Outcome is how a command run by Run ended.
type Outcome struct {
	// Err is what starting or waiting for the command returned.
	Err error
	// Started is false when the command could not start (Err says why).
	Started bool
	// TimedOut and Cancelled say that the timeout or the context's end
	// killed the tree.
	TimedOut, Cancelled bool
	// Took is the command's wall time, from just before its fork until
	// it was reaped and its output read.
	Took time.Duration
}

// Run runs cmd (see Start) to its end and returns how it ended. The
// context's end or the timeout (when positive) kills the whole tree; so
// does the child's own exit, so that nothing it left in the background
// outlives it, and its output is read for at most DrainTimeout (or
// cmd.WaitDelay) after that.
func Run(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) Outcome {
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = DrainTimeout
	}
	forked := time.Now()
	t, err := Start(ctx, cmd)
	if err != nil {
		return Outcome{Err: err}
	}
	o := Outcome{Started: true}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		_ = WaitExited(t.pid)
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		expired = tm.C
	}
	select {
	case <-exited:
	case <-ctx.Done():
		o.Cancelled = true
		t.Kill()
		<-exited
	case <-expired:
		o.TimedOut = true
		t.Kill()
		<-exited
	}
	// The leader exited and is not reaped yet: its group id is still
	// ours to kill.
	t.Kill()
	o.Err = cmd.Wait()
	o.Took = time.Since(forked)
	t.Release()
	return o
}
