package workflow

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/daokit/daokit/internal/proc"
)

// CommandSink is a program that listens: started once, through
// internal/proc like every process daokit runs, it reads one JSON line
// per event on its stdin. A program that is slow, never reads or exits
// early costs the run nothing: lines wait in the sink's bounded queue or
// are dropped and counted, and the program's end is reported once.
type CommandSink struct {
	*LineSink
	cmd   *exec.Cmd
	tree  *proc.Tree
	stdin *os.File
	// closing is set by Close: an exit after it is not early.
	closing atomic.Bool
	report  func(error)
	exited  chan struct{}
	reapMu  sync.Mutex
	reaped  bool // guarded by reapMu
}

// CommandOptions say how to start a CommandSink.
type CommandOptions struct {
	Argv []string
	Dir  string
	// Env is added to the controller's environment.
	Env []string
	// Queue is the most lines that may wait (DefaultQueue when 0).
	Queue int
	// Output, if not nil, takes the program's stdout and stderr (a file:
	// no goroutine copies them); nil discards them.
	Output *os.File
	// Gone hears, once, that the program exited before Close, with its
	// exit status; it is called on the sink's own goroutine.
	Gone func(error)
}

// StartCommandSink starts o.Argv with a pipe on its stdin; ctx carries
// the process scope (proc.WithScope, proc.WithStep).
func StartCommandSink(ctx context.Context, o CommandOptions) (*CommandSink, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("workflow: callback command is empty")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Dir = o.Dir
	if len(o.Env) > 0 {
		cmd.Env = append(os.Environ(), o.Env...)
	}
	cmd.Stdin = r
	if o.Output != nil {
		cmd.Stdout, cmd.Stderr = o.Output, o.Output
	}
	t, err := proc.Start(ctx, cmd)
	_ = r.Close() // the child has its copy
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	s := &CommandSink{cmd: cmd, tree: t, stdin: w, report: o.Gone, exited: make(chan struct{})}
	// A refused write means the program closed its stdin or exited: the
	// exit is what is reported (see wait), and what follows is dropped.
	s.LineSink = NewLineSink(w, o.Queue, nil)
	go s.wait()
	return s, nil
}

// wait reaps the program; an exit before Close is reported, with its
// status, before exited is closed (so before Close returns).
func (s *CommandSink) wait() {
	_ = proc.WaitExited(s.tree.PID())
	early := !s.closing.Load()
	// The leader exited and is not reaped yet: its group is still ours
	// to kill, so that nothing it left behind outlives it.
	s.reapMu.Lock()
	s.tree.Kill()
	err := s.cmd.Wait()
	s.reaped = true
	s.reapMu.Unlock()
	s.tree.Release()
	if early && s.report != nil {
		if err == nil {
			err = errExitedEarly
		}
		s.report(err)
	}
	close(s.exited)
}

// errExitedEarly is the report of a program that exited with status 0
// while the run still had events for it.
var errExitedEarly = errors.New("exit status 0")

// Close stops listening: the lines already queued are written for at
// most grace, then the program's stdin is closed (its end of input) and
// it has what is left of grace to exit before its tree is killed. It
// returns when the program is reaped and the sink's goroutines ended.
func (s *CommandSink) Close(grace time.Duration) {
	s.closing.Store(true)
	s.CloseQueue()
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	expired := false
	select {
	case <-s.Done():
	case <-s.exited:
	case <-deadline.C:
		expired = true
	}
	// Closing the pipe ends a write blocked on a program that does not
	// read, and tells one that does that there is no more.
	_ = s.stdin.Close()
	<-s.Done()
	if !expired {
		select {
		case <-s.exited:
			return
		case <-deadline.C:
		}
	}
	s.reapMu.Lock()
	if !s.reaped {
		s.tree.Kill() // before the reaping, while the group id is ours
	}
	s.reapMu.Unlock()
	<-s.exited
}
