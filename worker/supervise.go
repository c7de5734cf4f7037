package worker

import (
	"context"
	"errors"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/worker/transcript"
)

// reap waits for the group leader to exit and reaps it. Just before
// reaping, while the exited leader still pins its process group id, it
// kills whatever the worker left behind in the group: a step's leftovers
// must not outlive it, and they would hold the output pipes open.
func (p *Process) reap(exited chan<- struct{}) {
	defer close(exited)
	pinned := proc.WaitExited(p.pid) == nil
	p.mu.Lock()
	p.exited, p.exitedAt = true, time.Now()
	p.mu.Unlock()
	if pinned {
		p.tree.Kill()
	}
	// The exit status is read from cmd.ProcessState; the error only
	// repeats it.
	_ = p.cmd.Wait()
	if !pinned {
		// Unpinned, the group id could in theory have been reused by now;
		// leaving the leftovers alive is the worse risk.
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	if p.spec.OnExit != nil {
		e := Exit{PID: p.pid, ExitCode: -1}
		if st := p.cmd.ProcessState; st != nil {
			if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				e.Signal = ws.Signal()
			} else {
				e.ExitCode = st.ExitCode()
			}
		}
		p.mu.Lock()
		e.Stopped = p.cause
		p.mu.Unlock()
		p.spec.OnExit(e)
	}
}

// supervise enforces the timeout and stop requests, then waits for the
// logs to be read to their end and writes the Result.
func (p *Process) supervise(ctx context.Context, exited <-chan struct{}, followers *sync.WaitGroup, outLog, errLog *os.File) {
	var timeout <-chan time.Time
	if p.spec.Timeout > 0 {
		t := time.NewTimer(p.spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-exited:
	case <-p.stopCh:
		p.terminate(exited)
	case <-ctx.Done():
		p.setCause(transcript.StopCancelled)
		p.terminate(exited)
	case <-timeout:
		p.setCause(transcript.StopTimeout)
		p.terminate(exited)
	}
	followers.Wait()
	p.finish()
	// finish readied whoever waits for the worker's end on this
	// goroutine's P; the fsyncs below would hold it there until the
	// scheduler takes the P back. Let it run first.
	runtime.Gosched()
	// One after the other: nobody waits for these syncs on a step's way
	// (see LogsDurable), and a goroutine in a blocking fsync keeps its P
	// until the scheduler takes it back; two at once could hold both of
	// a two-core machine's while the controller has work to do.
	stats := p.result.Stats
	p.logErr = errors.Join(closeLog(outLog, stats.StdoutBytes), closeLog(errLog, stats.StderrBytes))
	// The tree was killed at the leader's exit (reap); what is left to do
	// (keeping or removing its cgroup, sweeping a tree without one) need
	// not delay the step's end, and is done before LogsDurable returns so
	// that nothing of the worker outlives it.
	p.tree.Release()
	close(p.logged)
}

// closeLog syncs an artifact log if the attempt wrote to it (wrote
// counts the bytes; a log it did not write to holds nothing of it to
// sync) and closes it.
func closeLog(f *os.File, wrote int64) error {
	var err error
	if wrote > 0 {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// terminate stops the process tree: SIGTERM, then SIGKILL after the
// grace period or at a second stop request.
func (p *Process) terminate(exited <-chan struct{}) {
	// The records still queued are delivered at once: nobody should wait
	// on a slow consumer to see the stop through.
	p.queue.relax()
	select {
	case <-exited:
		return
	default:
	}
	if p.spec.StopGrace > 0 {
		p.tree.Signal(syscall.SIGTERM)
		grace := time.NewTimer(p.spec.StopGrace)
		defer grace.Stop()
		select {
		case <-exited:
			return
		case <-grace.C:
		case <-p.stopCh:
		}
	}
	p.tree.Kill()
	<-exited
}

// finish records the Result and closes Done.
func (p *Process) finish() {
	end := time.Now()
	r := Result{PID: p.pid, SpawnedAt: p.spawned, StartedAt: p.started, EndedAt: end, ExitCode: -1}
	if st := p.cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Signal = ws.Signal()
		} else {
			r.ExitCode = st.ExitCode()
		}
	}
	p.mu.Lock()
	r.ExitedAt = p.exitedAt
	r.Stopped = p.cause
	r.ArtifactErr = p.artErr
	r.Stats = p.stats
	r.Summary = p.summary
	p.mu.Unlock()
	r.Stats.Dropped = p.queue.droppedCount()
	p.result = r
	p.queue.close(transcript.Record{Time: end, Status: transcript.StatusGap})
	close(p.done)
}
