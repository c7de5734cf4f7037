package projection

import (
	"strings"

	"github.com/daokit/daokit/vocab"
)

// WordKind says which vocabulary a Display's word is from, so that the
// caller words it with the matching labels.
type WordKind string

// The word kinds.
const (
	// WordReceived: the instruction was received and no run state was
	// reported yet (Value is empty).
	WordReceived WordKind = "received"
	// WordReview: a change waits for /accept or /reject (Value empty).
	WordReview WordKind = "review"
	// WordAbandoned: a person dropped the run while it waited (Value is
	// vocab.ReasonAbandoned, for a caller that words reasons).
	WordAbandoned WordKind = "abandoned"
	// WordRun: Value is a vocab.RunState.
	WordRun WordKind = "run"
	// WordPipeline: Value is a vocab.Status the run ended with.
	WordPipeline WordKind = "pipeline"
	// WordStep: Value is a stored vocab.StepState ("" for a step not
	// reached yet).
	WordStep WordKind = "step"
)

// Word is what a display shows for where an entry stands.
type Word struct {
	Kind  WordKind
	Value string
}

// Display is the display model of one entry: everything a surface needs
// to draw its state, and nothing of another entry's.
type Display struct {
	Word Word
	// Selected: the entry is the one the person is on (the steered task,
	// the pipeline's current step); only it shows Detail.
	Selected bool
	// Need: why the entry waits for its person (a change to review, a
	// run that ended blocked or failed other than on purpose), and so
	// the controls to suggest (Need.Suggest).
	Need Need
	// Mood is how the word reads at a glance.
	Mood Mood
	// Waiting: the run is queued for a slot of its lane, said so by the
	// controller. Lane is that lane on a selected entry.
	Waiting bool
	// Live: a worker holds or is about to hold the run's slot.
	Live bool
	// Detail is what only the selected entry shows: the step its news
	// was about, the lane it waits for and the reason code (unless the
	// word is the reason: abandoned). Others show
	// their word alone, so that one entry's progress never reads as
	// another's.
	Detail Detail
}

// Detail is the selected entry's extra news.
type Detail struct {
	Step, Lane string
	Reason     vocab.Reason
}

// Done reports whether the display says the run ended DONE.
func (d Display) Done() bool {
	return d.Word == Word{Kind: WordPipeline, Value: string(vocab.StatusDone)}
}

// NeedsYou reports whether the entry waits for its person.
func (d Display) NeedsYou() bool { return d.Need != NeedNone }

// Project returns e's display model; selected is whether the person is
// on e. The order of the rules is the order of what matters to the
// person: a change waiting for them, then a run they dropped or
// cancelled, then how the run ended, then where it is now.
func Project(e Entry, selected bool) Display {
	d := Display{Selected: selected}
	switch {
	case e.Review:
		d.Word, d.Need = Word{Kind: WordReview}, NeedReview
		d.Mood = d.Need.Mood()
	case e.Abandoned():
		d.Word = Word{Kind: WordAbandoned, Value: string(vocab.ReasonAbandoned)}
	case e.Cancelled():
		d.Word = Word{Kind: WordRun, Value: string(vocab.StateCancelled)}
	case e.Final != "":
		d.Word, d.Mood = Word{Kind: WordPipeline, Value: string(e.Final)}, statusMood(e.Final)
		switch e.Final {
		case vocab.StatusBlocked:
			d.Need = NeedBlocked
		case vocab.StatusFailed:
			d.Need = NeedFailed
		}
	case e.State != "":
		d.Word, d.Mood = StateWord(e.State), runMood(e.State)
		d.Waiting = e.State == vocab.StateWaiting
		d.Live = e.State == vocab.StateRequesting || e.State == vocab.StateGenerating || e.State == vocab.StatePersisting
	default:
		d.Word = Word{Kind: WordReceived}
	}
	if selected {
		d.Detail = Detail{Step: e.StepID, Reason: e.Reason}
		if d.Word.Kind == WordAbandoned {
			d.Detail.Reason = "" // the word says it
		}
		if d.Waiting {
			d.Detail.Lane = e.Lane
		}
	}
	return d
}

// StateWord is the word of a run state, for a surface that shows the
// states a step went through (the conversation's trail of a step).
func StateWord(s vocab.RunState) Word { return Word{Kind: WordRun, Value: string(s)} }

// Pipeline returns the display of a pipeline's status for the run it
// is at: the status itself, unless that run's entry says a person ended
// it (cancelled or abandoned: the pipeline then says FAILED for the
// contract's sake, the person is shown what they did).
func Pipeline(status vocab.Status, run Entry) Display {
	if run.EndedByPerson() {
		return Project(run, false)
	}
	// Live: the run executes, so its loop has an agent at work (the
	// pipeline pane and status name it; a blocked, failed or finished
	// run has nobody at work).
	return Display{Word: Word{Kind: WordPipeline, Value: string(status)}, Mood: statusMood(status),
		Live: status == vocab.StatusExecute}
}

// Step returns the display model of one step of a pipeline: stored is
// its role_lifecycle "step:<id>" value, current whether it is the
// pipeline's current step (the selected one), done whether the whole
// pipeline is DONE (which makes a released step a finished one).
func Step(stored string, current, done bool) Display {
	d := Display{Selected: current, Word: Word{Kind: WordStep, Value: stored}, Mood: stepMood(stored, done)}
	state, _, _ := splitStep(stored)
	switch vocab.StepState(state) {
	case vocab.StepQueued:
		d.Waiting = true
	case vocab.StepDispatched, vocab.StepOwnedByLane:
		d.Live = true
	case vocab.StepReviewPending:
		d.Need = NeedReview
	case vocab.StepFailed, vocab.StepFailedNonAdopted:
		if !stepAbandoned(stored) {
			d.Need = NeedFailed
		}
	}
	return d
}

// splitStep cuts a stored step value into its state and argument.
func splitStep(stored string) (state, arg string, ok bool) { return strings.Cut(stored, ":") }

// stepAbandoned reports whether a failed step's argument is the
// abandonment's reason code (stored lower-cased).
func stepAbandoned(stored string) bool {
	_, arg, _ := splitStep(stored)
	return arg == strings.ToLower(string(vocab.ReasonAbandoned))
}
