package transcript

import "time"

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

// Critical reports whether the record carries an event that must not be
// dropped on the way to a slow consumer.
func (r *Record) Critical() bool {
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
	StopLeaseLost StopCause = "lease_lost" // another writer took the step's lease over
	// StopTakenOver: a person's takeover, carried out by the controller
	// running the step (`daokit takeover` forwarded to it), which then
	// resumes the step.
	StopTakenOver StopCause = "taken_over"
	// StopAgentFailed: the agent CLI retries what cannot succeed (its
	// provider refused the credentials); its own result would come only
	// after minutes of retries.
	StopAgentFailed StopCause = "agent_failed"
)
