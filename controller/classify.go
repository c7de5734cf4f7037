package controller

import (
	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// Reason codes: why a run ended other than completed, or why it moved.
// They are declared in package vocab, with their labels; these names
// stay for the controller's code and its callers. They are stable strings
// carried by ledger events ("reason_code") and relay messages.
const (
	ReasonExitNonzero        = string(vocab.ReasonExitNonzero)
	ReasonKilledSignal       = string(vocab.ReasonKilledSignal)
	ReasonTimeout            = string(vocab.ReasonTimeout)
	ReasonCancelled          = string(vocab.ReasonCancelled)
	ReasonSpawnFailed        = string(vocab.ReasonSpawnFailed)
	ReasonOutputInvalid      = string(vocab.ReasonOutputInvalid)
	ReasonReportedFailure    = string(vocab.ReasonReportedFailure)
	ReasonHung               = string(vocab.ReasonHung)
	ReasonLeaseLost          = string(vocab.ReasonLeaseLost)
	ReasonManualTakeover     = string(vocab.ReasonManualTakeover)
	ReasonRestartLimit       = string(vocab.ReasonRestartLimit)
	ReasonInterrupted        = string(vocab.ReasonInterrupted)
	ReasonAbandoned          = string(vocab.ReasonAbandoned)
	ReasonLedgerWrite        = string(vocab.ReasonLedgerWrite)
	ReasonWorktree           = string(vocab.ReasonWorktree)
	ReasonSetupFailed        = string(vocab.ReasonSetupFailed)
	ReasonSetupNotAllowed    = string(vocab.ReasonSetupNotAllowed)
	ReasonRejected           = string(vocab.ReasonRejected)
	ReasonMergeConflict      = string(vocab.ReasonMergeConflict)
	ReasonMergeNotFF         = string(vocab.ReasonMergeNotFF)
	ReasonMergeFailed        = string(vocab.ReasonMergeFailed)
	ReasonNothingToDeliver   = string(vocab.ReasonNothingToDeliver)
	ReasonDiverged           = string(vocab.ReasonDiverged)
	ReasonPRPushFailed       = string(vocab.ReasonPRPushFailed)
	ReasonPROpenFailed       = string(vocab.ReasonPROpenFailed)
	ReasonPRNotConfigured    = string(vocab.ReasonPRNotConfigured)
	ReasonSessionOtherStep   = string(vocab.ReasonSessionOtherStep)
	ReasonSessionOtherFolder = string(vocab.ReasonSessionOtherFolder)
	ReasonAgentDenied        = string(vocab.ReasonAgentDenied)
	ReasonAgentAuth          = string(vocab.ReasonAgentAuth)
	ReasonAgentNotLoggedIn   = string(vocab.ReasonAgentNotLoggedIn)
	ReasonAgentRateLimited   = string(vocab.ReasonAgentRateLimited)
	ReasonAgentProvider      = string(vocab.ReasonAgentProvider)
	ReasonAgentMaxTurns      = string(vocab.ReasonAgentMaxTurns)
	ReasonAgentOptionRefused = string(vocab.ReasonAgentOptionRefused)
	ReasonBudgetExceeded     = string(vocab.ReasonBudgetExceeded)
	ReasonAgentNoAnswer      = string(vocab.ReasonAgentNoAnswer)
	ReasonAgentRefused       = string(vocab.ReasonAgentRefused)
)

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

// classify maps a run's end to a reason code, or "" for a success. The
// controller's own reasons for stopping a worker come first, because the
// exit status of a stopped worker only echoes the stop: a worker stopped
// for hanging died of SIGTERM, but WORKER_HUNG is what happened. Then
// what the agent CLI itself said (see agentReason), before its exit
// status: both CLIs exit 1 for a refused login as for a crash, and only
// the crash is worth a restart.
func classify(f Failure) string {
	r := f.Result
	switch {
	case f.SpawnErr != nil:
		return ReasonSpawnFailed
	case f.Cancelled || r.Stopped == transcript.StopCancelled:
		return ReasonCancelled
	case f.LeaseLost || r.Stopped == transcript.StopLeaseLost:
		return ReasonLeaseLost
	case r.Stopped == transcript.StopTakenOver:
		return ReasonManualTakeover
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

// requiresResult reports whether workers of a kind (as named in
// daokit.toml) always end with a result event, so that its absence is
// invalid output: the agent CLIs do, a plain command need not.
func requiresResult(kind string) bool { return kind == "claude" || kind == "codex" }

// restartable reports whether a run that ended for reason may pass if
// tried again, so that the restart policy applies: crashes, hangs and
// broken output streams, and a person's takeover carried out by this
// controller (the step resumes under the successor's lease). Failures
// that would repeat (a missing program, a timeout, the worker's own
// verdict) and decisions (cancel, a lease another writer took) are not
// restarted.
func restartable(reason string) bool {
	switch reason {
	case ReasonExitNonzero, ReasonKilledSignal, ReasonHung, ReasonOutputInvalid, ReasonManualTakeover:
		return true
	}
	return false
}

// ReasonText returns the label of a reason code in loc's language; an
// unknown code (from a newer daokit) is shown as it is.
func ReasonText(loc *i18n.Localizer, reason string) string {
	return vocab.Reason(reason).Label(loc)
}
