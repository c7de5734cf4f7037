package projection

import "github.com/daokit/daokit/vocab"

// Entry is what the coordinator has said about one entry: its owner
// (task, run, step, lane) and where its latest run stands.
type Entry struct {
	TaskID, RunID, StepID, Lane string
	// State is the latest run state of the run's step attempt
	// (vocab.RunState); "" before the controller reported one.
	State vocab.RunState
	// Final is the status the run ended with (DONE, FAILED, BLOCKED);
	// "" while it goes on.
	Final vocab.Status
	// Reason is the latest reason code.
	Reason vocab.Reason
	// Review: a step's change waits for /accept or /reject.
	Review bool
}

// Update is one piece of news about a run: a run state (State set), how
// the run ended (Final set), a change waiting for review (Review), or
// the review's end (Reviewed).
type Update struct {
	TaskID, RunID, StepID, Lane string
	State                       vocab.RunState
	Final                       vocab.Status
	Reason                      vocab.Reason
	Review, Reviewed            bool
}

// Owns reports whether u is news of e's slot: the same task and the
// same run (an entry whose run is not known yet takes any run of its
// task).
func (e *Entry) Owns(u Update) bool {
	return u.TaskID == e.TaskID && (e.RunID == "" || u.RunID == "" || u.RunID == e.RunID)
}

// Fold applies u to e when u is news of e's slot, and reports whether
// it changed what e holds. News of another task or of another run of
// the task is ignored (slot isolation); a new run of the task starts
// with NewRun, not here.
func (e *Entry) Fold(u Update) bool {
	if !e.Owns(u) {
		return false
	}
	before := *e
	if e.RunID == "" {
		e.RunID = u.RunID
	}
	switch {
	case u.State != "":
		e.State, e.StepID, e.Review = u.State, u.StepID, false
		if u.Lane != "" {
			e.Lane = u.Lane
		}
		if !Ended(u.State) {
			// The run goes again (a retry, a follow-up that reopened
			// it): it has not ended any more, and why it ended no
			// longer applies.
			e.Final, e.Reason = "", ""
		}
	case u.Final != "":
		e.Final, e.Review = u.Final, false
	case u.Review:
		e.Review = true
		if u.StepID != "" {
			e.StepID = u.StepID
		}
	case u.Reviewed:
		e.Review = false
	}
	if u.Reason != "" {
		e.Reason = u.Reason
	}
	return *e != before
}

// NewRun starts e over for a new run of its task: what the previous run
// said no longer applies.
func (e *Entry) NewRun(run string) {
	*e = Entry{TaskID: e.TaskID, RunID: run}
}

// Retried says a person asked for run to go again; it reports whether
// e changed. The run has not ended any more, and until the controller
// says where it stands again the entry shows the request received, not
// the state the run left.
func (e *Entry) Retried(run string) bool {
	if run != e.RunID {
		return false
	}
	before := *e
	e.Final = ""
	if Ended(e.State) {
		e.State, e.Reason = "", ""
	}
	return *e != before
}

// Abandoned reports whether a person dropped the run while it waited.
func (e *Entry) Abandoned() bool { return e.Reason == vocab.ReasonAbandoned }

// Cancelled reports whether the run ended because a person cancelled
// it: its step attempt was cancelled, or its end says so (a run
// cancelled after it ended blocked or failed, or while its change
// waited for review, has no cancelled attempt).
func (e *Entry) Cancelled() bool {
	return e.State == vocab.StateCancelled || (e.Final != "" && e.Reason == vocab.ReasonCancelled)
}

// EndedByPerson reports whether a person ended the run on purpose
// (cancelled or abandoned it): it has nothing next and calls for
// nobody.
func (e *Entry) EndedByPerson() bool { return e.Cancelled() || e.Abandoned() }

// Going reports whether the run goes on: it has not ended, no change of
// it waits for review, and no person ended it.
func (e *Entry) Going() bool { return e.Final == "" && !e.Review && !e.EndedByPerson() }

// Ended reports whether a run state is one a step attempt ends in.
func Ended(s vocab.RunState) bool {
	switch s {
	case vocab.StateCompleted, vocab.StateFailed, vocab.StateCancelled, vocab.StateTimedOut:
		return true
	}
	return false
}

// Settled is the entry of a run as pipeline.json and the controller's
// route leave it: the pipeline's status and next action say whether the
// run ended (DONE, BLOCKED, FAILED) or waits for review, and what the
// run's events said (heard) adds the latest reason and whether a person
// cancelled or dropped it. It is how the window's attention and the
// pipeline pane see the run the pipeline is at, and how the task list
// sees a task it knows only from the pipeline.
func Settled(heard Entry, status vocab.Status, next vocab.Next) Entry {
	e := Entry{TaskID: heard.TaskID, RunID: heard.RunID, StepID: heard.StepID, Lane: heard.Lane, Reason: heard.Reason}
	if heard.Cancelled() {
		e.State = vocab.StateCancelled
	}
	switch {
	case status == vocab.StatusBlocked || next == vocab.NextAwait:
		e.Final = vocab.StatusBlocked
	case status == vocab.StatusAccept || next == vocab.NextReview:
		e.Review = true
	case status == vocab.StatusFailed || next == vocab.NextRetry:
		e.Final = vocab.StatusFailed
	case status == vocab.StatusDone || next == vocab.NextDone:
		e.Final = vocab.StatusDone
	}
	return e
}
