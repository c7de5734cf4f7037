package controller

import (
	"errors"
	"io/fs"
	"os/exec"
	"slices"
	"syscall"

	"github.com/daokit/daokit/heal"
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// Reason codes: why a run ended other than completed, or why it moved.
// They are stable strings carried by ledger events ("reason_code") and
// relay messages; the window shows them with the message
// "controller.reason.<code>" in the reader's language.
const (
	// ReasonExitNonzero: the worker exited on its own with a non-zero code.
	ReasonExitNonzero = "WORKER_EXIT_NONZERO"
	// ReasonKilledSignal: a signal daokit did not send ended the worker
	// (the OOM killer, a person's kill).
	ReasonKilledSignal = "WORKER_KILLED_SIGNAL"
	// ReasonTimeout: the lane's time limit ran out and daokit stopped it.
	ReasonTimeout = "WORKER_TIMEOUT"
	// ReasonCancelled: a person or the run's owner cancelled it.
	ReasonCancelled = "WORKER_CANCELLED"
	// ReasonSpawnFailed: the worker could not be started (no such
	// program, no permission, bad directory).
	ReasonSpawnFailed = "WORKER_SPAWN_FAILED"
	// ReasonOutputInvalid: the worker exited 0 but its structured output
	// never delivered a result (a broken agent CLI stream).
	ReasonOutputInvalid = "WORKER_OUTPUT_INVALID"
	// ReasonReportedFailure: the worker exited 0 but its own result says
	// the work failed.
	ReasonReportedFailure = "WORKER_REPORTED_FAILURE"
	// ReasonHung: the heartbeat found the worker STALE and daokit stopped
	// it.
	ReasonHung = "WORKER_HUNG"
	// ReasonLeaseLost: another controller took the step over; this one
	// stopped its worker.
	ReasonLeaseLost = "LEASE_LOST"
	// ReasonRestartLimit: the step failed again after the restart policy's
	// last restart.
	ReasonRestartLimit = heal.ReasonRestartLimit
	// ReasonInterrupted: the controller shut down under the run; not a
	// verdict on the work, which the next controller resumes.
	ReasonInterrupted = "RUN_INTERRUPTED"
	// ReasonAbandoned: a person dropped the run while it waited for its
	// lane (/abandon, daokit send --abandon); it never started.
	ReasonAbandoned = "RUN_ABANDONED"
	// ReasonLedgerWrite: the outcome could not be written to the ledger.
	ReasonLedgerWrite = "LEDGER_WRITE_FAILED"
	// ReasonWorktree: the step's git worktree could not be made (no
	// repository, no base branch, a folder in the way).
	ReasonWorktree = "WORKTREE_FAILED"
	// ReasonSetupFailed: the repository's set-up script failed or timed
	// out in the step's new worktree.
	ReasonSetupFailed = "WORKTREE_SETUP_FAILED"
	// ReasonSetupNotAllowed: the repository has a set-up script that the
	// person has not allowed; it was not run.
	ReasonSetupNotAllowed = "WORKTREE_SETUP_NOT_ALLOWED"
	// ReasonRejected: the person rejected the step's change.
	ReasonRejected = "CHANGE_REJECTED"
	// ReasonMergeConflict: accepting would conflict with the base branch;
	// nothing was merged.
	ReasonMergeConflict = "MERGE_CONFLICT"
	// ReasonMergeNotFF: merge mode ff-only, and the base branch moved.
	ReasonMergeNotFF = "MERGE_NOT_FAST_FORWARD"
	// ReasonMergeFailed: git refused the merge for another reason (for
	// example uncommitted changes in the base's work tree).
	ReasonMergeFailed = "MERGE_FAILED"
	// ReasonNothingToDeliver: an accept found no change in the step's
	// worktree that its base branch does not already hold; nothing was
	// recorded as merged.
	ReasonNothingToDeliver = "NOTHING_TO_DELIVER"
	// ReasonDiverged: the worktree's HEAD and the step's branch went
	// separate ways (the agent switched branches and committed); nothing
	// was merged, the person picks.
	ReasonDiverged = "WORKTREE_DIVERGED"
	// ReasonSessionOtherStep and ReasonSessionOtherFolder: a recorded
	// resume handle was not used because it belongs to another step or
	// another folder; the worker started fresh.
	ReasonSessionOtherStep   = "SESSION_OTHER_STEP"
	ReasonSessionOtherFolder = "SESSION_OTHER_FOLDER"
	// ReasonAgentDenied: the agent's own permissions (Claude Code's
	// permission mode, the Codex sandbox) refused some of its edits or
	// commands; the step does not pass, whatever the agent said after.
	// The refused calls are in the step's end ("denied").
	ReasonAgentDenied = "AGENT_PERMISSION_DENIED"
	// ReasonAgentAuth: the model provider refused the agent's credentials
	// (HTTP 401 or 403).
	ReasonAgentAuth = "AGENT_AUTH_FAILED"
	// ReasonAgentNotLoggedIn: the agent CLI has no credentials at all.
	ReasonAgentNotLoggedIn = "AGENT_NOT_LOGGED_IN"
	// ReasonAgentRateLimited: the provider said too many requests or that
	// it is overloaded, after the CLI's own retries.
	ReasonAgentRateLimited = "AGENT_RATE_LIMITED"
	// ReasonAgentProvider: another error of the model provider (5xx, a
	// request or model it refused).
	ReasonAgentProvider = "AGENT_PROVIDER_ERROR"
	// ReasonAgentMaxTurns: the agent used up its turn limit.
	ReasonAgentMaxTurns = "AGENT_MAX_TURNS"
	// ReasonAgentOptionRefused: the agent CLI refused its command line (an
	// unknown option, bypassPermissions as root, Codex outside a git
	// repository without --skip-git-repo-check).
	ReasonAgentOptionRefused = "AGENT_OPTION_REFUSED"
	// ReasonBudgetExceeded: the run spent its budget ([workflow]
	// budget_usd); it stopped BLOCKED before its next step. A retry
	// grants it another budget_usd.
	ReasonBudgetExceeded = "BUDGET_EXCEEDED"
)

// Reasons lists every reason code.
func Reasons() []string {
	return []string{ReasonExitNonzero, ReasonKilledSignal, ReasonTimeout, ReasonCancelled, ReasonSpawnFailed,
		ReasonOutputInvalid, ReasonReportedFailure, ReasonHung, ReasonLeaseLost, ReasonRestartLimit,
		ReasonInterrupted, ReasonLedgerWrite, ReasonWorktree, ReasonSetupFailed, ReasonSetupNotAllowed,
		ReasonRejected, ReasonMergeConflict, ReasonMergeNotFF, ReasonMergeFailed,
		ReasonNothingToDeliver, ReasonDiverged,
		ReasonSessionOtherStep, ReasonSessionOtherFolder,
		ReasonAgentDenied, ReasonAgentAuth, ReasonAgentNotLoggedIn, ReasonAgentRateLimited, ReasonAgentProvider,
		ReasonAgentMaxTurns, ReasonAgentOptionRefused, ReasonBudgetExceeded}
}

// Failure is everything known about how a worker run ended: the runner's
// Result plus what only the controller knows.
type Failure struct {
	// Result is the worker's end as the runner saw it.
	Result worker.Result
	// SpawnErr is Start's error when there was no worker at all.
	SpawnErr error
	// Cancelled, Hung and LeaseLost say why the controller stopped the
	// worker, when its Result does not say it already.
	Cancelled, Hung, LeaseLost bool
	// ResultFailed says the worker's final result reported failure; a
	// failed result in Result.Summary counts as well.
	ResultFailed bool
	// RequireResult says the worker kind must end with a result event
	// (agent CLIs): exiting 0 without one is invalid output.
	RequireResult bool
}

// Classify maps a run's end to a reason code, or "" for a success. The
// controller's own reasons for stopping a worker come first, because the
// exit status of a stopped worker only echoes the stop: a worker stopped
// for hanging died of SIGTERM, but WORKER_HUNG is what happened. Then
// what the agent CLI itself said (see agentReason), before its exit
// status: both CLIs exit 1 for a refused login as for a crash, and only
// the crash is worth a restart.
func Classify(f Failure) string {
	r := f.Result
	switch {
	case f.SpawnErr != nil:
		return ReasonSpawnFailed
	case f.Cancelled || r.Stopped == transcript.StopCancelled:
		return ReasonCancelled
	case f.LeaseLost || r.Stopped == transcript.StopLeaseLost:
		return ReasonLeaseLost
	case f.Hung || r.Stopped == transcript.StopHung:
		return ReasonHung
	case r.Stopped == transcript.StopTimeout:
		return ReasonTimeout
	case r.Stopped == transcript.StopAgentFailed:
		// daokit stops an agent only for retries its provider refused the
		// credentials for (see transcript.Retry.Futile).
		return ReasonAgentAuth
	case agentReason(r.Summary) != "":
		return agentReason(r.Summary)
	case r.Signal != 0:
		return ReasonKilledSignal
	case r.ExitCode != 0:
		return ReasonExitNonzero
	case f.ResultFailed || (r.Summary.Result != nil && r.Summary.Result.Failed):
		return ReasonReportedFailure
	case f.RequireResult && r.Summary.Result == nil:
		return ReasonOutputInvalid
	}
	return ""
}

// RequiresResult reports whether workers of a kind (as named in
// daokit.toml) always end with a result event, so that its absence is
// invalid output: the agent CLIs do, a plain command need not.
func RequiresResult(kind string) bool { return kind == "claude" || kind == "codex" }

// Restartable reports whether a run that ended for reason may pass if
// tried again, so that the restart policy applies: crashes, hangs and
// broken output streams. Failures that would repeat (a missing program, a
// timeout, the worker's own verdict) and decisions (cancel, lost lease)
// are not restarted.
func Restartable(reason string) bool {
	switch reason {
	case ReasonExitNonzero, ReasonKilledSignal, ReasonHung, ReasonOutputInvalid:
		return true
	}
	return false
}

// SpawnRetryable reports whether a start failure looks passing (out of
// processes or memory) rather than a configuration mistake.
func SpawnRetryable(err error) bool {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return false
	}
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM)
}

// TerminalState returns the state a run ends in for reason: cancelled
// for cancels and interruptions, timedOut for timeouts, completed for no
// reason, failed otherwise.
func TerminalState(reason string) string {
	switch reason {
	case "":
		return StateCompleted
	case ReasonCancelled, ReasonInterrupted:
		return StateCancelled
	case ReasonTimeout:
		return StateTimedOut
	}
	return StateFailed
}

// ReasonText returns the label of a reason code in loc's language; an
// unknown code (from a newer daokit) is shown as it is.
func ReasonText(loc *i18n.Localizer, reason string) string {
	if !slices.Contains(Reasons(), reason) {
		return reason
	}
	return loc.T("controller.reason." + reason)
}

// StateText returns the label of a run state in loc's language.
func StateText(loc *i18n.Localizer, state string) string {
	if !IsState(state) {
		return state
	}
	return loc.T("controller.state." + state)
}
