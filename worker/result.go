package worker

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Record is one line of worker output on its way to the consumer, or a
// gap marker (Status == StatusGap) for lines dropped at the very end.
type Record struct {
	Time   time.Time
	Stream Stream
	// Text is the line without its newline (and without a trailing "\r"),
	// with invalid UTF-8 replaced, cut at the Spec's LineLimit.
	Text string
	// Size is the line's length in bytes as written; Truncated is set
	// when Text holds only the first part of it.
	Size      int
	Truncated bool
	Status    Status
	Events    []Event
	// Dropped counts the lines that were dropped just before this one
	// because the consumer fell behind. They are still in the artifact
	// files, and they still counted as activity.
	Dropped int
}

// critical reports whether the record carries an event that must not be
// dropped.
func (r *Record) critical() bool {
	for _, e := range r.Events {
		if e.Type.Critical() {
			return true
		}
	}
	return false
}

// StopCause says why daokit stopped a worker; empty when it was not
// stopped. Stable strings.
type StopCause string

// The reasons to stop a worker.
const (
	StopNone      StopCause = ""
	StopCancelled StopCause = "cancelled"  // the person or the owner cancelled
	StopTimeout   StopCause = "timeout"    // Spec.Timeout passed
	StopHung      StopCause = "hung"       // the heartbeat judged it stale
	StopLeaseLost StopCause = "lease_lost" // another controller took the step over
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
}

// Lines returns the number of lines on both streams.
func (s Stats) Lines() int64 { return s.StdoutLines + s.StderrLines }

// Summary is what the worker said that matters after it is gone, kept
// however many records were dropped.
type Summary struct {
	// SessionID is the latest resume handle the worker reported.
	SessionID string
	// Result is the worker's last result event, if any.
	Result *Event
	// LastError is the text of the last error event.
	LastError string
	// LastProgress is the text of the last progress event.
	LastProgress string
}

func (s *Summary) apply(ev Event) {
	switch ev.Type {
	case EventSession:
		s.SessionID = ev.ID
	case EventResult:
		r := ev
		s.Result = &r
	case EventError:
		s.LastError = ev.Text
	case EventProgress:
		s.LastProgress = ev.Text
	}
}

// Result is how a worker run ended.
type Result struct {
	PID       int
	StartedAt time.Time
	EndedAt   time.Time
	// ExitCode is the process's exit status, or -1 when a signal ended it.
	ExitCode int
	// Signal is the signal that ended the process, 0 if none.
	Signal syscall.Signal
	// Stopped says why daokit stopped the worker, if it did. A worker
	// that exits on its own before a stop takes effect keeps its cause.
	Stopped StopCause
	// ArtifactErr is the first error writing the artifact files; the run
	// itself went on.
	ArtifactErr error
	Stats       Stats
	Summary     Summary
}

// Duration is how long the worker ran.
func (r Result) Duration() time.Duration { return r.EndedAt.Sub(r.StartedAt) }

// TimedOut reports whether the worker was stopped by its timeout.
func (r Result) TimedOut() bool { return r.Stopped == StopTimeout }

// Cancelled reports whether the worker was stopped by a cancel.
func (r Result) Cancelled() bool { return r.Stopped == StopCancelled }

// Success reports whether the worker exited 0 on its own.
func (r Result) Success() bool { return r.ExitCode == 0 && r.Signal == 0 && r.Stopped == StopNone }

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
