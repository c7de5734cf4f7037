package worker

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/daokit/daokit/internal/proc"
	"github.com/daokit/daokit/worker/transcript"
)

// Process is a running worker: a child process in a process group of its
// own, which writes its output into the artifact logs, read back line by
// line as it comes. Every goroutine it starts ends
// once the process group is gone and the records are delivered or
// discarded.
type Process struct {
	spec    Spec
	cmd     *exec.Cmd
	tree    *proc.Tree
	pid     int
	spawned time.Time // just before the fork
	started time.Time
	from    LogOffsets // where this attempt's output starts in the logs

	queue *recordQueue
	out   chan transcript.Record

	activity atomic.Int64 // UnixNano of the last output

	stopCh chan struct{}
	done   chan struct{}
	// logged is closed once the artifact logs are synced and closed,
	// after done; logErr is what failed doing so.
	logged chan struct{}
	logErr error

	mu      sync.Mutex // guards the fields below
	dec     transcript.Decoder
	stats   Stats
	summary Summary
	cause   transcript.StopCause
	exited  bool
	// exitedAt is when the leader exited (set with exited).
	exitedAt time.Time
	artErr   error

	// result is written once, before done is closed.
	result Result
}

// Start starts the worker described by spec. It returns once the child
// exists, so that its pid can be recorded (in a lease) before anything
// depends on it. A worker that cannot be started is a *SpawnError.
//
// Cancelling ctx stops the worker (StopCancelled). The caller must read
// Records until it is closed, or call Discard.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	spec = spec.withDefaults()
	if len(spec.Argv) == 0 {
		return nil, ErrNoCommand
	}
	spawnErr := func(op string, err error) error {
		return &SpawnError{Op: op, Argv: spec.Argv, Dir: spec.Dir, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, spawnErr("start", err)
	}
	var closers closeList
	outLog, errLog, err := openArtifacts(spec.ArtifactRoot, spec.ArtifactDir, &closers)
	if err != nil {
		closers.close()
		return nil, spawnErr("artifacts", err)
	}
	from, err := logOffsets(outLog, errLog)
	if err != nil {
		closers.close()
		return nil, spawnErr("artifacts", err)
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Dir = spec.Dir
	base := spec.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = buildEnv(base, spec.Env)
	if spec.SysProcAttr != nil {
		// A copy: the runtime adds its own settings to it.
		attr := *spec.SysProcAttr
		cmd.SysProcAttr = &attr
	}
	// The worker writes into the logs itself: what it printed is on disk
	// whatever becomes of the controller (see follow).
	cmd.Stdout, cmd.Stderr = outLog, errLog
	if spec.UseStdin {
		cmd.Stdin = strings.NewReader(spec.Stdin)
	}
	// Stdin is copied by a goroutine of exec's; if a descendant that left
	// the group keeps stdin open without reading, Wait must not hang.
	cmd.WaitDelay = stdinDelay
	spawned := time.Now()
	// The runtime gives the worker a group of its own (one signal reaches
	// it and everything it started; the terminal's Ctrl-C does not), and
	// tracks descendants that leave it.
	tree, err := proc.Start(ctx, cmd)
	if err != nil {
		closers.close()
		return nil, spawnErr("start", err)
	}

	p := &Process{
		spec:    spec,
		cmd:     cmd,
		tree:    tree,
		pid:     cmd.Process.Pid,
		spawned: spawned,
		started: time.Now(),
		queue:   newRecordQueue(spec.QueueLines, spec.QueueBytes),
		out:     make(chan transcript.Record),
		stopCh:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		logged:  make(chan struct{}),
		dec:     transcript.NewDecoder(spec.Kind),
		from:    from,
	}
	p.activity.Store(p.started.UnixNano())

	exited := make(chan struct{})
	var followers sync.WaitGroup
	followers.Add(2)
	go p.follow(transcript.Stdout, outLog, from.Stdout, exited, &followers)
	go p.follow(transcript.Stderr, errLog, from.Stderr, exited, &followers)
	go p.reap(exited)
	go p.forward()
	go p.supervise(ctx, exited, &followers, outLog, errLog)
	return p, nil
}

// PID returns the worker's process id, which is also its process group id.
func (p *Process) PID() int { return p.pid }

// LogOffsets returns where this worker's output starts in its artifact
// logs, which keep earlier attempts' output before it: what a successor
// reads back from (see Replay) if the controller dies before it records
// the worker's end.
func (p *Process) LogOffsets() LogOffsets { return p.from }

// StartedAt returns when the worker started.
func (p *Process) StartedAt() time.Time { return p.started }

// Records returns the worker's output, one Record per line, closed after
// the last one. See recordQueue for what is dropped when the reader falls
// behind.
func (p *Process) Records() <-chan transcript.Record { return p.out }

// Discard tells the Process that nobody will read Records any more: the
// rest is dropped and Records is closed. Safe to call more than once and
// after Records is drained, so `defer p.Discard()` is a good habit.
func (p *Process) Discard() { p.queue.discard() }

// Stop stops the worker: SIGTERM to its process tree, SIGKILL after the
// Spec's StopGrace. The first cause given is the one the Result reports;
// a second Stop during the grace period sends SIGKILL at once. Stop
// returns at once; Wait or Done tell when the worker is gone.
func (p *Process) Stop(cause transcript.StopCause) {
	p.setCause(cause)
	notify(p.stopCh)
}

// setCause records why the worker is being stopped, unless a cause is
// already recorded or the worker exited on its own first.
func (p *Process) setCause(cause transcript.StopCause) {
	if cause == transcript.StopNone {
		cause = transcript.StopCancelled
	}
	p.mu.Lock()
	if p.cause == transcript.StopNone && !p.exited {
		p.cause = cause
	}
	p.mu.Unlock()
}

// StopCause returns why the worker is being stopped, as its Result
// will report it: the first cause given before it exited, StopNone when
// it exited on its own first (or was never stopped).
func (p *Process) StopCause() transcript.StopCause {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cause
}

// Cancel is Stop(StopCancelled).
func (p *Process) Cancel() { p.Stop(transcript.StopCancelled) }

// Done is closed when the worker is gone: the process group killed, the
// leader reaped and its logs read to their end. The logs may still be syncing (see LogsDurable).
func (p *Process) Done() <-chan struct{} { return p.done }

// LogsDurable waits until the artifact logs are on disk (synced and
// closed) and the process tree is released (its cgroup kept or
// removed), which is after Done, and returns what failed doing so. The
// sync starts as the logs are read to their end, so that a caller need not wait
// for it before it records the worker's end: the Result's Stats say how
// long each log is, and a reader can tell a log that a power cut
// shortened.
func (p *Process) LogsDurable() error {
	<-p.logged
	return p.logErr
}

// Exited reports whether the worker's process (the group leader) has
// exited. Done may come later: it also waits for the logs to be read to
// their end.
func (p *Process) Exited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// Wait waits until Done and returns the Result.
func (p *Process) Wait() Result {
	<-p.done
	return p.result
}

// LastActivity returns when the worker last wrote anything (or started).
func (p *Process) LastActivity() time.Time { return time.Unix(0, p.activity.Load()) }

// Stats returns the output counts so far.
func (p *Process) Stats() Stats {
	p.mu.Lock()
	s := p.stats
	p.mu.Unlock()
	s.Dropped = p.queue.droppedCount()
	return s
}

// Summary returns what the worker has said that matters so far, such as
// its resume handle.
func (p *Process) Summary() Summary {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.summary
}

// forward hands queued records to the consumer.
func (p *Process) forward() {
	defer close(p.out)
	for {
		rec, ok := p.queue.pop()
		if !ok {
			return
		}
		select {
		case p.out <- rec:
		case <-p.queue.goneCh:
			return
		}
	}
}
