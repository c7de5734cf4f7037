package leader

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrDeposed refuses every write of a leader that another took the root
// from: its lease is someone else's, or the stream moved past what it
// wrote.
var ErrDeposed = errors.New("this controller is no longer the root's leader on the hub")

// DivergedError refuses to lead a root whose folder and stream disagree:
// line Line of events.jsonl is not the stream's message of that number.
// Neither is changed; a person decides which copy is the root's.
type DivergedError struct {
	Root string
	Line int
}

// Error implements error.
func (e *DivergedError) Error() string {
	return fmt.Sprintf("root %s: events.jsonl line %d differs from the hub's ledger stream; neither was changed", e.Root, e.Line)
}

// OutageError is an append given up while the hub could not be reached
// or the lease not confirmed (the controller was stopping): nothing was
// written locally. Outage tells the journal it is held, not refused.
type OutageError struct{ Err error }

// Error implements error.
func (e *OutageError) Error() string { return "the hub is unreachable: " + e.Err.Error() }

// Unwrap returns the last failure.
func (e *OutageError) Unwrap() error { return e.Err }

// Outage marks the error as the hub's absence.
func (e *OutageError) Outage() bool { return true }

// wrongSequence reports the hub's refusal of an expected last sequence
// (the stream's or, for a key-value update, the key's revision).
func wrongSequence(err error) bool {
	var je jetstream.JetStreamError
	if !errors.As(err, &je) || je.APIError() == nil {
		return false
	}
	code := je.APIError().ErrorCode
	return code == jetstream.JSErrCodeStreamWrongLastSequence || code == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}
