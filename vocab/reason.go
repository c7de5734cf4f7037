package vocab

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/daokit/daokit/i18n"
)

// Reason is a reason code: why a run, a step or a worker ended other than
// completed, why a run is blocked, why a lease was taken over or a judge
// decided as it did. Codes are stored in event payloads ("reason_code")
// and relay messages; they never change once released, since existing
// ledgers and the Python tool read them.
type Reason string

// Why a worker or a step ended.
const (
	// ReasonExitNonzero: the worker exited on its own with a non-zero code.
	ReasonExitNonzero Reason = "WORKER_EXIT_NONZERO"
	// ReasonKilledSignal: a signal daokit did not send ended the worker
	// (the OOM killer, a person's kill).
	ReasonKilledSignal Reason = "WORKER_KILLED_SIGNAL"
	// ReasonTimeout: the lane's time limit ran out and daokit stopped it.
	ReasonTimeout Reason = "WORKER_TIMEOUT"
	// ReasonCancelled: a person or the run's owner cancelled it.
	ReasonCancelled Reason = "WORKER_CANCELLED"
	// ReasonSpawnFailed: the worker could not be started (no such
	// program, no permission, bad directory).
	ReasonSpawnFailed Reason = "WORKER_SPAWN_FAILED"
	// ReasonOutputInvalid: the worker exited 0 but its structured output
	// never delivered a result (a broken agent CLI stream).
	ReasonOutputInvalid Reason = "WORKER_OUTPUT_INVALID"
	// ReasonReportedFailure: the worker exited 0 but its own result says
	// the work failed.
	ReasonReportedFailure Reason = "WORKER_REPORTED_FAILURE"
	// ReasonHung: the heartbeat found the worker STALE and daokit stopped
	// it.
	ReasonHung Reason = "WORKER_HUNG"
	// ReasonLeaseLost: another controller took the step over; this one
	// stopped its worker.
	ReasonLeaseLost Reason = "LEASE_LOST"
	// ReasonInterrupted: the controller shut down under the run; not a
	// verdict on the work, which the next controller resumes.
	ReasonInterrupted Reason = "RUN_INTERRUPTED"
	// ReasonAbandoned: a person dropped the run while it waited for its
	// lane (/abandon, daokit send --abandon); it never started.
	ReasonAbandoned Reason = "RUN_ABANDONED"
	// ReasonLedgerWrite: the outcome could not be written to the ledger.
	ReasonLedgerWrite Reason = "LEDGER_WRITE_FAILED"
	// ReasonWorkflowError: the run's workflow could not go on for a
	// reason of its own (not a step's failure).
	ReasonWorkflowError Reason = "WORKFLOW_ERROR"
	// ReasonWorkflowInvalid: a Lead's workflow could not be read, so the
	// Lead was not (re)started.
	ReasonWorkflowInvalid Reason = "WORKFLOW_INVALID"
)

// Why a run is blocked: it waits for a person, and each of these says
// something different about what the person should do.
const (
	// ReasonRestartLimit: the step failed again after the restart
	// policy's last restart.
	ReasonRestartLimit Reason = "RESTART_LIMIT_REACHED"
	// ReasonMaxIterations: a loop used all its iterations without its
	// judge saying done.
	ReasonMaxIterations Reason = "MAX_ITERATIONS_REACHED"
	// ReasonEscalated: an agent or the judge handed the run to a person.
	ReasonEscalated Reason = "AGENT_ESCALATED"
	// ReasonBudgetExceeded: the run spent its budget ([workflow]
	// budget_usd); it stopped before its next step. A retry grants it
	// another budget_usd.
	ReasonBudgetExceeded Reason = "BUDGET_EXCEEDED"
)

// What the agent CLI itself said about its end.
const (
	// ReasonAgentDenied: the agent's own permissions (Claude Code's
	// permission mode, the Codex sandbox) refused some of its edits or
	// commands; the step does not pass, whatever the agent said after.
	ReasonAgentDenied Reason = "AGENT_PERMISSION_DENIED"
	// ReasonAgentAuth: the model provider refused the agent's credentials
	// (HTTP 401 or 403).
	ReasonAgentAuth Reason = "AGENT_AUTH_FAILED"
	// ReasonAgentNotLoggedIn: the agent CLI has no credentials at all.
	ReasonAgentNotLoggedIn Reason = "AGENT_NOT_LOGGED_IN"
	// ReasonAgentRateLimited: the provider said too many requests or that
	// it is overloaded, after the CLI's own retries.
	ReasonAgentRateLimited Reason = "AGENT_RATE_LIMITED"
	// ReasonAgentProvider: another error of the model provider (5xx, a
	// request or model it refused).
	ReasonAgentProvider Reason = "AGENT_PROVIDER_ERROR"
	// ReasonAgentMaxTurns: the agent used up its turn limit.
	ReasonAgentMaxTurns Reason = "AGENT_MAX_TURNS"
	// ReasonAgentOptionRefused: the agent CLI refused its command line (an
	// unknown option, bypassPermissions as root, Codex outside a git
	// repository without --skip-git-repo-check).
	ReasonAgentOptionRefused Reason = "AGENT_OPTION_REFUSED"
	// ReasonAgentNoAnswer: the agent CLI said it succeeded, but its model
	// answered nothing at all (no text, no tool call): nothing was done.
	ReasonAgentNoAnswer Reason = "AGENT_NO_ANSWER"
	// ReasonAgentRefused: the model's safeguards refused the request; the
	// same instruction would be refused again.
	ReasonAgentRefused Reason = "AGENT_MODEL_REFUSED"
)

// Worktrees, reviews and delivery.
const (
	// ReasonWorktree: the step's git worktree could not be made (no
	// repository, no base branch, a folder in the way).
	ReasonWorktree Reason = "WORKTREE_FAILED"
	// ReasonSetupFailed: the repository's set-up script failed or timed
	// out in the step's new worktree.
	ReasonSetupFailed Reason = "WORKTREE_SETUP_FAILED"
	// ReasonSetupNotAllowed: the repository has a set-up script that the
	// person has not allowed; it was not run.
	ReasonSetupNotAllowed Reason = "WORKTREE_SETUP_NOT_ALLOWED"
	// ReasonRejected: the person rejected the step's change.
	ReasonRejected Reason = "CHANGE_REJECTED"
	// ReasonMergeConflict: accepting would conflict with the base branch;
	// nothing was merged.
	ReasonMergeConflict Reason = "MERGE_CONFLICT"
	// ReasonMergeNotFF: merge mode ff-only, and the base branch moved.
	ReasonMergeNotFF Reason = "MERGE_NOT_FAST_FORWARD"
	// ReasonMergeFailed: git refused the merge for another reason (for
	// example uncommitted changes in the base's work tree).
	ReasonMergeFailed Reason = "MERGE_FAILED"
	// ReasonNothingToDeliver: an accept found no change in the step's
	// worktree that its base branch does not already hold.
	ReasonNothingToDeliver Reason = "NOTHING_TO_DELIVER"
	// ReasonDiverged: the worktree's HEAD and the step's branch went
	// separate ways; nothing was merged, the person picks.
	ReasonDiverged Reason = "WORKTREE_DIVERGED"
	// ReasonPRPushFailed: an accept of a change delivered as a pull
	// request could not push the step's branch; nothing was opened, the
	// change still waits for review.
	ReasonPRPushFailed Reason = "PR_PUSH_FAILED"
	// ReasonPROpenFailed: the branch was pushed, but GitHub did not open
	// the pull request (refused, unreachable, rate limited); the change
	// still waits for review, and the next accept finds or opens it.
	ReasonPROpenFailed Reason = "PR_OPEN_FAILED"
	// ReasonPRNotConfigured: an accept cannot open a pull request: no
	// GitHub token, or no repository (pr_repo unset and the remote's URL
	// names none).
	ReasonPRNotConfigured Reason = "PR_NOT_CONFIGURED"
	// ReasonSessionOtherStep and ReasonSessionOtherFolder: a recorded
	// resume handle was not used because it belongs to another step or
	// another folder; the worker started fresh.
	ReasonSessionOtherStep   Reason = "SESSION_OTHER_STEP"
	ReasonSessionOtherFolder Reason = "SESSION_OTHER_FOLDER"
)

// A judge's decision after an iteration of a loop.
const (
	JudgeReviewerApproved Reason = "JUDGE_REVIEWER_APPROVED" // the reviewer approved
	JudgeChangesRequested Reason = "JUDGE_CHANGES_REQUESTED" // the reviewer asked for changes
	JudgeNoVerdict        Reason = "JUDGE_NO_VERDICT"        // no verdict could be read
	JudgeCommandPassed    Reason = "JUDGE_COMMAND_PASSED"    // the judge command exited 0
	JudgeCommandFailed    Reason = "JUDGE_COMMAND_FAILED"    // it exited non-zero (or did not start)
	JudgeCommandTimedOut  Reason = "JUDGE_COMMAND_TIMED_OUT" // it ran past judge_timeout
	JudgeAgentDone        Reason = "JUDGE_AGENT_DONE"        // the judge agent approved
	JudgeAgentContinue    Reason = "JUDGE_AGENT_CONTINUE"    // the judge agent wants another round
	JudgeEscalated        Reason = "JUDGE_ESCALATED"         // an agent or the judge handed the run to a person
)

// Leases, takeovers and successions.
const (
	// ReasonManualTakeover: a person ran daokit takeover.
	ReasonManualTakeover Reason = "MANUAL_TAKEOVER"
	// ReasonLeaseAdopted: a takeover adopted a lease that had not expired.
	ReasonLeaseAdopted Reason = "VALID_UNEXPIRED_LEASE"
	// ReasonLeaseNotAdopted: a takeover did not adopt a lease.
	ReasonLeaseNotAdopted Reason = "LEASE_NOT_ADOPTED"
	// ReasonSuccession: a controller took over from the one before it.
	ReasonSuccession Reason = "CONTROLLER_SUCCESSION"
	// ReasonHandoffApply: a handoff package could not be applied.
	ReasonHandoffApply Reason = "HANDOFF_APPLY_ERROR"
	// ReasonHeartbeatStale: a takeover decision on a STALE heartbeat.
	ReasonHeartbeatStale Reason = "HEARTBEAT_STALE"
	// ReasonHeartbeatWarning: a WARNING heartbeat is only observed.
	ReasonHeartbeatWarning Reason = "HEARTBEAT_WARNING_OBSERVE_ONLY"
	// The verdicts on the controller's lease; a takeover over an invalid
	// one says INVALID_LEASE_<verdict>.
	LeaseValid           Reason = "VALID_ACTIVE_LEASE"
	LeaseMissing         Reason = "MISSING_CONTROLLER_LEASE"
	LeaseNoneActive      Reason = "NON_ACTIVE_CONTROLLER_LEASE"
	LeaseMalformedExpiry Reason = "MALFORMED_LEASE_EXPIRY"
	LeaseExpired         Reason = "EXPIRED_CONTROLLER_LEASE"
)

// Prefixes of the reason codes that carry an argument.
const (
	// InvalidLeasePrefix starts INVALID_LEASE_<lease verdict>.
	InvalidLeasePrefix = "INVALID_LEASE_"
)

// Reasons lists every reason code without an argument; NoOutput,
// NoAction and InvalidLease make the others.
func Reasons() []Reason { return slices.Clone(reasons) }

var reasons = []Reason{
	ReasonExitNonzero, ReasonKilledSignal, ReasonTimeout, ReasonCancelled, ReasonSpawnFailed,
	ReasonOutputInvalid, ReasonReportedFailure, ReasonHung, ReasonLeaseLost, ReasonInterrupted,
	ReasonAbandoned, ReasonLedgerWrite, ReasonWorkflowError, ReasonWorkflowInvalid,
	ReasonRestartLimit, ReasonMaxIterations, ReasonEscalated, ReasonBudgetExceeded,
	ReasonAgentDenied, ReasonAgentAuth, ReasonAgentNotLoggedIn, ReasonAgentRateLimited, ReasonAgentProvider,
	ReasonAgentMaxTurns, ReasonAgentOptionRefused, ReasonAgentNoAnswer, ReasonAgentRefused,
	ReasonWorktree, ReasonSetupFailed, ReasonSetupNotAllowed, ReasonRejected, ReasonMergeConflict,
	ReasonMergeNotFF, ReasonMergeFailed, ReasonNothingToDeliver, ReasonDiverged,
	ReasonPRPushFailed, ReasonPROpenFailed, ReasonPRNotConfigured,
	ReasonSessionOtherStep, ReasonSessionOtherFolder,
	JudgeReviewerApproved, JudgeChangesRequested, JudgeNoVerdict, JudgeCommandPassed, JudgeCommandFailed,
	JudgeCommandTimedOut, JudgeAgentDone, JudgeAgentContinue, JudgeEscalated,
	ReasonManualTakeover, ReasonLeaseAdopted, ReasonLeaseNotAdopted, ReasonSuccession, ReasonHandoffApply,
	ReasonHeartbeatStale, ReasonHeartbeatWarning,
	LeaseValid, LeaseMissing, LeaseNoneActive, LeaseMalformedExpiry, LeaseExpired,
}

// Known reports whether r is a reason code this daokit labels.
func (r Reason) Known() bool {
	if slices.Contains(reasons, r) {
		return true
	}
	code := string(r)
	if noOutputRE().MatchString(code) || noActionRE().MatchString(code) {
		return true
	}
	rest, ok := strings.CutPrefix(code, InvalidLeasePrefix)
	return ok && slices.Contains(reasons, Reason(rest))
}

// NoOutput is the heartbeat's reason for n units of silence: unit is
// 'H', 'M' or 'S' (NO_OUTPUT_30S).
func NoOutput(n int, unit byte) Reason {
	return Reason("NO_OUTPUT_" + strconv.Itoa(n) + string(unit))
}

// NoAction is a takeover decision's reason for a heartbeat status that
// calls for nothing (HEARTBEAT_IDLE_NO_ACTION).
func NoAction(health string) Reason { return Reason("HEARTBEAT_" + health + "_NO_ACTION") }

// InvalidLease is a takeover's reason over a lease verdict that is not
// valid (INVALID_LEASE_EXPIRED_CONTROLLER_LEASE).
func InvalidLease(verdict Reason) Reason { return Reason(InvalidLeasePrefix + string(verdict)) }

// The argument-carrying codes are parsed on first use: most commands
// never word a reason code.
var (
	noOutputRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^NO_OUTPUT_(\d+)([HMS])$`) })
	noActionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^HEARTBEAT_([A-Z]+)_NO_ACTION$`) })
)

// Label returns r in loc's language. A code this daokit does not know
// (from a newer daokit, another tool) is shown as it is.
func (r Reason) Label(loc *i18n.Localizer) string {
	if s := label(loc, ReasonCatalog, reasons, r); s != string(r) || r == "" {
		return s
	}
	code := string(r)
	if m := noOutputRE().FindStringSubmatch(code); m != nil {
		return loc.T(ReasonCatalog+"no_output."+strings.ToLower(m[2]), "N", m[1])
	}
	if m := noActionRE().FindStringSubmatch(code); m != nil {
		return loc.T(ReasonCatalog+"no_action", "Status", Health(m[1]).Label(loc))
	}
	if rest, ok := strings.CutPrefix(code, InvalidLeasePrefix); ok {
		if inner := Reason(rest); slices.Contains(reasons, inner) {
			return loc.T(ReasonCatalog+"invalid_lease", "Reason", inner.Label(loc))
		}
	}
	return code
}
