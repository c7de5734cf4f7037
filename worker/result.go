package worker

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/daokit/daokit/worker/transcript"
)

// Stats counts a worker's output. Every line counts as activity.
type Stats struct {
	StdoutLines, StderrLines int64
	StdoutBytes, StderrBytes int64
	// Events counts the events decoded; Unknown and Malformed the lines
	// of those statuses (tolerated, never fatal).
	Events, Unknown, Malformed int64
	// Truncated counts lines cut at LineLimit; Dropped the lines not
	// delivered to the consumer.
	Truncated, Dropped int64
	// LogCutBytes counts the bytes cut from the head of the artifact logs
	// to keep them within Spec.LogLimit.
	LogCutBytes int64
	// StdoutLogBytes and StderrLogBytes are the artifact logs' lengths
	// once read to their end (earlier attempts' output and a cut head's
	// hole included).
	StdoutLogBytes, StderrLogBytes int64
}

// Lines returns the number of lines on both streams.
func (s Stats) Lines() int64 { return s.StdoutLines + s.StderrLines }

// Summary is what the worker said that matters after it is gone, kept
// however many records were dropped.
type Summary struct {
	// SessionID is the latest resume handle the worker reported.
	SessionID string
	// Result is the worker's last result event, if any.
	Result *transcript.Event
	// LastError is the text of the last error event.
	LastError string
	// LastProgress is the text of the last progress event.
	LastProgress string
	// Outcome is what an agent CLI said about how the work went.
	Outcome
}

func (s *Summary) apply(ev transcript.Event) {
	s.Outcome.note(ev)
	switch ev.Type {
	case transcript.EventSession:
		s.SessionID = ev.ID
	case transcript.EventResult:
		r := ev
		s.Result = &r
	case transcript.EventError:
		s.LastError = ev.Text
	case transcript.EventProgress:
		s.LastProgress = ev.Text
	}
}

// Result is how a worker run ended.
type Result struct {
	PID int
	// SpawnedAt is when the process was about to be created (just before
	// the fork), StartedAt when it existed (after its exec).
	SpawnedAt time.Time
	StartedAt time.Time
	// ExitedAt is when the process exited; EndedAt, after it, when its
	// output was drained (the logs may still be syncing: see
	// Process.LogsDurable).
	ExitedAt time.Time
	EndedAt  time.Time
	// ExitCode is the process's exit status, or -1 when a signal ended it.
	ExitCode int
	// Signal is the signal that ended the process, 0 if none.
	Signal syscall.Signal
	// Stopped says why daokit stopped the worker, if it did. A worker
	// that exits on its own before a stop takes effect keeps its cause.
	Stopped transcript.StopCause
	// ArtifactErr is the first error writing the artifact files (syncing
	// them is Process.LogsDurable's); the run itself went on.
	ArtifactErr error
	Stats       Stats
	Summary     Summary
	// FromLog marks a Result read back from the artifact logs (see
	// Replay) by a controller that took over from one that died after
	// the worker had exited: the exit status died with the worker's
	// parent, and ExitCode 0 stands for the successful result the log
	// ends with (nothing else is read back as a Result).
	FromLog bool
}

// Duration is how long the worker ran, until its output was drained.
func (r Result) Duration() time.Duration { return r.EndedAt.Sub(r.StartedAt) }

// ProcessTime is the process's own wall time as time(1) measures it:
// from its fork to its exit, without what daokit does before (the
// artifact files, the pipes) and after (draining, syncing the logs).
func (r Result) ProcessTime() time.Duration {
	if r.ExitedAt.IsZero() || r.SpawnedAt.IsZero() {
		return r.Duration()
	}
	return r.ExitedAt.Sub(r.SpawnedAt)
}

// TimedOut reports whether the worker was stopped by its timeout.
func (r Result) TimedOut() bool { return r.Stopped == transcript.StopTimeout }

// Cancelled reports whether the worker was stopped by a cancel.
func (r Result) Cancelled() bool { return r.Stopped == transcript.StopCancelled }

// Success reports whether the worker exited 0 on its own.
func (r Result) Success() bool {
	return r.ExitCode == 0 && r.Signal == 0 && r.Stopped == transcript.StopNone
}

// SignalName returns the name of Signal ("SIGKILL"), or "".
func (r Result) SignalName() string {
	if r.Signal == 0 {
		return ""
	}
	if name := unix.SignalName(r.Signal); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(r.Signal))
}

// SpawnError is a worker that could not be started: no such program, no
// permission, a bad directory, or an artifact folder that cannot be made.
type SpawnError struct {
	Op   string // "artifacts", "pipe" or "start"
	Argv []string
	Dir  string
	Err  error
}

// Error implements error: "start worker <program>: <op>: <cause>".
func (e *SpawnError) Error() string {
	name := ""
	if len(e.Argv) > 0 {
		name = e.Argv[0]
	}
	return fmt.Sprintf("start worker %s: %s: %v", name, e.Op, e.Err)
}

// Unwrap returns the underlying error.
func (e *SpawnError) Unwrap() error { return e.Err }
