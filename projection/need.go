package projection

import (
	"strings"

	"github.com/daokit/daokit/vocab"
)

// Need is why an entry calls for its person, from none to the most
// urgent. The window's banner, title, bell and notify command, and the
// task list's mark, all read it from here.
type Need uint8

// The needs.
const (
	NeedNone Need = iota
	// NeedFinished: a run ended DONE after a long time. Project never
	// says it (the package has no clock); the window's attention does,
	// for a DONE entry that ran long.
	NeedFinished
	// NeedFailed: the run ended FAILED, not on purpose.
	NeedFailed
	// NeedBlocked: the run is blocked and waits for its person.
	NeedBlocked
	// NeedReview: a step's change waits for /accept or /reject.
	NeedReview
)

// String names the need: the suffix of its catalog ids and the {need}
// of the notify command.
func (n Need) String() string {
	switch n {
	case NeedFinished:
		return "finished"
	case NeedFailed:
		return "failed"
	case NeedBlocked:
		return "blocked"
	case NeedReview:
		return "review"
	}
	return "none"
}

// Control is a command a person types for an entry (its name without
// the slash, as the relay's controls are named).
type Control string

// The controls an entry's display suggests.
const (
	ControlAccept Control = "accept"
	ControlReject Control = "reject"
	ControlRetry  Control = "retry"
	ControlCancel Control = "cancel"
)

// Suggest returns the controls that work for an entry in need n, in the
// order to offer them; none when n asks for nothing to be typed but a
// next instruction. The controller takes each of them in that state
// (/cancel ends a blocked or failed run, /retry runs it again; a change
// waiting for review is merged or sent back).
func (n Need) Suggest() []Control {
	switch n {
	case NeedBlocked, NeedFailed:
		return []Control{ControlRetry, ControlCancel}
	case NeedReview:
		return []Control{ControlAccept, ControlReject}
	}
	return nil
}

// Mood is how a display reads at a glance; a surface paints it in its
// own colours (the window's tones, the banner's levels).
type Mood uint8

// The moods.
const (
	// MoodQuiet: nothing to see yet, or ended on purpose.
	MoodQuiet Mood = iota
	// MoodNeutral: a state with no good or bad in it.
	MoodNeutral
	// MoodProgress: work goes on.
	MoodProgress
	// MoodGood: done.
	MoodGood
	// MoodWarn: waits for something (a slot, a person's review).
	MoodWarn
	// MoodBad: failed.
	MoodBad
)

// Mood is how a need reads: a failure or a block is bad, a review a
// warning, a long run done good.
func (n Need) Mood() Mood {
	switch n {
	case NeedFailed, NeedBlocked:
		return MoodBad
	case NeedReview:
		return MoodWarn
	case NeedFinished:
		return MoodGood
	}
	return MoodQuiet
}

// statusMood is how a pipeline status reads.
func statusMood(s vocab.Status) Mood {
	switch s {
	case vocab.StatusDone:
		return MoodGood
	case vocab.StatusFailed:
		return MoodBad
	case vocab.StatusBlocked, vocab.StatusDraining:
		return MoodWarn
	case vocab.StatusExecute, vocab.StatusAccept:
		return MoodProgress
	case "":
		return MoodQuiet
	}
	return MoodNeutral
}

// runMood is how a run state reads.
func runMood(s vocab.RunState) Mood {
	switch s {
	case vocab.StateRequesting, vocab.StateGenerating, vocab.StatePersisting:
		return MoodProgress
	case vocab.StateWaiting:
		return MoodWarn
	case vocab.StateCompleted:
		return MoodGood
	case vocab.StateFailed, vocab.StateTimedOut:
		return MoodBad
	case vocab.StateCancelled:
		return MoodQuiet
	}
	return MoodNeutral
}

// stepMood reads a stored step value the way the handoff rules do
// (accepted/done/completed/passed/verified, anything failed, error or
// blocked), plus daokit's queued and dispatched states: a step not
// reached yet or queued is quiet, a finished one good, a failed one
// bad, any other at work.
func stepMood(stored string, done bool) Mood {
	v := strings.ToLower(stored)
	prefix, _, _ := strings.Cut(v, ":")
	switch {
	case v == "":
		if done {
			return MoodGood
		}
		return MoodQuiet
	case strings.Contains(v, "fail"), strings.Contains(v, "error"), strings.Contains(v, "blocked"),
		prefix == "lease_expired":
		return MoodBad
	case prefix == "accepted", prefix == "done", prefix == "completed", prefix == "passed", prefix == "verified",
		strings.HasPrefix(prefix, "accepted"), strings.HasPrefix(prefix, "completed"):
		return MoodGood
	case prefix == "lease_released":
		if done {
			return MoodGood
		}
		return MoodQuiet
	case prefix == string(vocab.StepQueued):
		return MoodQuiet
	}
	return MoodProgress
}
