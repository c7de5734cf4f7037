package vocab

import (
	"slices"

	"github.com/daokit/daokit/i18n"
)

// Result is a control result: the code of the controller's answer when
// it refuses a request (an instruction, /cancel, /retry, /abandon,
// /accept, /issue). It travels as a relay error's code, with a Detail
// argument; whoever shows it words both (see Label).
type Result string

// The control results.
const (
	// ResultNoRun: the request named no run the controller knows
	// (Detail: the task and run ids given).
	ResultNoRun Result = "no_run"
	// ResultNotFailed: /retry of a run that has not failed (Detail: its
	// pipeline status).
	ResultNotFailed Result = "not_failed"
	// ResultNotRunning: /cancel of a run that has ended (Detail: its
	// pipeline status).
	ResultNotRunning Result = "not_running"
	// ResultNotWaiting: /abandon of a run that no longer waits for its
	// lane (Detail: its run state).
	ResultNotWaiting Result = "not_waiting"
	// ResultEmpty: an empty instruction.
	ResultEmpty Result = "empty_instruction"
	// ResultLedgerWrite: the request could not be recorded (Detail: the
	// file).
	ResultLedgerWrite Result = "ledger_write_failed"
	// ResultIndexRead: the instruction index could not be read (Detail:
	// its folder).
	ResultIndexRead Result = "index_unreadable"
	// ResultDiskFull: the ledger's disk is full; nothing was recorded
	// (Detail: the file).
	ResultDiskFull Result = "disk_full"
	// ResultInvalidID: a task, run or step id does not match the ledger's
	// id pattern (Detail: which id and its value).
	ResultInvalidID Result = "invalid_id"
	// ResultNotInReview: /accept or /reject while no change waits for
	// review (Detail: the run's pipeline status).
	ResultNotInReview Result = "not_in_review"
	// ResultNoTeam: /issue in a root without a team (Detail: the folder).
	ResultNoTeam Result = "no_team"
	// ResultBadIssue: /issue without a known role and a title (Detail:
	// the roles).
	ResultBadIssue Result = "bad_issue"
	// ResultBadIssueChange: /comment, /label or /close without an issue
	// number and what to do (Detail: the command).
	ResultBadIssueChange Result = "bad_issue_change"
	// ResultNoIssue: the issue to change is not in the outbox (Detail:
	// its number).
	ResultNoIssue Result = "no_issue"
	// ResultOutbox: the outbox could not be written (Detail: why).
	ResultOutbox Result = "outbox_failed"
)

// Results lists every control result.
func Results() []Result {
	return []Result{ResultNoRun, ResultNotFailed, ResultNotRunning, ResultNotWaiting, ResultEmpty,
		ResultLedgerWrite, ResultIndexRead, ResultDiskFull, ResultInvalidID, ResultNotInReview,
		ResultNoTeam, ResultBadIssue, ResultBadIssueChange, ResultNoIssue, ResultOutbox}
}

// Known reports whether r is one of the control results.
func (r Result) Known() bool { return slices.Contains(Results(), r) }

// Label returns r in loc's language with its detail filled in. A detail
// that is itself a word of the vocabulary (the pipeline status BLOCKED,
// the run state completed) is worded too, so that no stored value leaks
// into the sentence. An unknown result is shown as it is.
func (r Result) Label(loc *i18n.Localizer, detail string) string {
	if !r.Known() {
		return string(r)
	}
	return loc.T(ResultCatalog+string(r), "Detail", Word(loc, detail))
}

// Word returns s in loc's language when it is a pipeline status, a run
// state, a health word, a next action or a reason code, and s itself
// otherwise: for arguments whose kind the sender does not say.
func Word(loc *i18n.Localizer, s string) string {
	switch {
	case slices.Contains(Statuses(), Status(s)):
		return Status(s).Label(loc)
	case slices.Contains(RunStates(), RunState(s)):
		return RunState(s).Label(loc)
	case slices.Contains(Healths(), Health(s)):
		return Health(s).Label(loc)
	case slices.Contains(Nexts(), Next(s)):
		return Next(s).Label(loc)
	case Reason(s).Known():
		return Reason(s).Label(loc)
	}
	return s
}
