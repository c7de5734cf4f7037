package vocab

// Op is the operation of a SYSTEM event (its payload's "operation"): what
// the controller, a hook, a Lead or a person's command did. The event
// types stay the contract's; the operation says which of many things a
// SYSTEM event reports.
type Op string

// The operations.
const (
	OpControllerStarted Op = "CONTROLLER_STARTED"
	OpControllerStopped Op = "CONTROLLER_STOPPED"
	OpControllerFenced  Op = "CONTROLLER_FENCED"
	OpInstruction       Op = "INSTRUCTION_RECEIVED"
	OpControl           Op = "CONTROL_RECEIVED"
	// OpOperation: a command the CLI forwarded (takeover, handoff) and
	// what it answered.
	OpOperation          Op = "OPERATION_FORWARDED"
	OpResumed            Op = "INSTRUCTION_RESUMED"
	OpRunState           Op = "RUN_STATE"
	OpRunFinished        Op = "RUN_FINISHED"
	OpWorkerOutput       Op = "WORKER_OUTPUT"
	OpLedgerRepaired     Op = "LEDGER_REPAIRED"
	OpLedgerWritesHeld   Op = "LEDGER_WRITES_HELD"
	OpLeaseAdopted       Op = "LEASE_ADOPTED"
	OpLeaseRenewFailed   Op = "LEASE_RENEW_FAILED"
	OpLeasesPruned       Op = "LEASES_PRUNED"
	OpHandoffApplied     Op = "HANDOFF_APPLIED"
	OpHandoffApplyFailed Op = "HANDOFF_APPLY_FAILED"
	OpHookRan            Op = "HOOK_RAN"
	OpHookSkipped        Op = "HOOK_SKIPPED"
	OpOrphansKilled      Op = "ORPHANS_KILLED"
	OpLeadStarted        Op = "LEAD_STARTED"
	OpLeadExited         Op = "LEAD_EXITED"
	OpLeadRestartLimit   Op = "LEAD_RESTART_LIMIT"
	OpOutboxEvent        Op = "OUTBOX_EVENT"
	OpIssueFiled         Op = "ISSUE_FILED"
	OpIssueChanged       Op = "ISSUE_CHANGED"
	OpIterationStarted   Op = "ITERATION_STARTED"
	OpReviewVerdict      Op = "REVIEW_VERDICT"
	OpIterationFinished  Op = "ITERATION_FINISHED"
	OpStepSummary        Op = "STEP_SUMMARY"
	OpStepMetrics        Op = "STEP_METRICS"
	OpStepRecorded       Op = "STEP_RECORDED"
	OpStepReadBack       Op = "STEP_READ_BACK"
	OpWorktreeReady      Op = "WORKTREE_READY"
	OpWorktreeSetup      Op = "WORKTREE_SETUP"
	OpWorktreeRemoved    Op = "WORKTREE_REMOVED"
	OpWorktreeKept       Op = "WORKTREE_KEPT"
	OpReviewPending      Op = "REVIEW_PENDING"
	OpMergeRefused       Op = "MERGE_REFUSED"
	OpSessionBound       Op = "SESSION_BOUND"
	OpSessionResume      Op = "SESSION_RESUME"
	OpAgentRetry         Op = "AGENT_RETRY"
	OpBudgetWarning      Op = "BUDGET_WARNING"
	OpBudgetExceeded     Op = "BUDGET_EXCEEDED"
	OpBudgetExtended     Op = "BUDGET_EXTENDED"
	// OpCallbackExited: a [[workflow.callbacks]] program could not start
	// or exited while it had events to hear; reported once, the run goes
	// on without it.
	OpCallbackExited Op = "CALLBACK_EXITED"
	// OpCallbackDropped: lines a callback could not take in time (its
	// queue was full, or it had gone) were dropped; counted when it
	// closed.
	OpCallbackDropped Op = "CALLBACK_DROPPED"
	// OpTakeoverSeen: the liveness loop read another writer's takeover of
	// a run of this controller (the replay signal); acted says whether it
	// stopped the run's worker on the lost step.
	OpTakeoverSeen Op = "TAKEOVER_SEEN"
	// OpForeignRun: the liveness loop read events of a run another writer
	// runs, which this controller does not have: reported, not acted on.
	OpForeignRun Op = "FOREIGN_RUN_SEEN"
	// The ledger's own (see ledger.OpCommitDiscarded and the others): a
	// writer that does not erase what another tool wrote says so.
	OpCommitDiscarded         Op = "COMMIT_JOURNAL_DISCARDED"
	OpWriteConflict           Op = "LEDGER_WRITE_CONFLICT"
	OpLeasesMerged            Op = "LEASES_MERGED"
	OpForeignPipelineReplaced Op = "FOREIGN_PIPELINE_REPLACED"
	// OpHubLeaderElected: a controller with [hub] won the root's lease
	// on the hub (payload: root_id, term, holder, sequence, fetched,
	// published, restored); its first write, which fences the leader
	// before it.
	OpHubLeaderElected Op = "HUB_LEADER_ELECTED"
)

// OpPullRequest: an accepted change was delivered as a pull request
// (payload: url, number, created, repo, remote, branch, base_branch).
const OpPullRequest Op = "PULL_REQUEST"

// OpPullRequestReview: the person rejected a change whose branch has a
// pull request (or GitLab merge request), and the review comments
// people left on it were read as the next iteration's findings
// (payload: url, number, forge, findings; error when they could not
// be read).
const OpPullRequestReview Op = "PULL_REQUEST_REVIEW"

// Ops lists every operation.
func Ops() []Op {
	return []Op{OpControllerStarted, OpControllerStopped, OpControllerFenced, OpInstruction, OpControl, OpOperation,
		OpResumed, OpRunState, OpRunFinished, OpWorkerOutput, OpLedgerRepaired, OpLedgerWritesHeld,
		OpLeaseAdopted, OpLeaseRenewFailed, OpLeasesPruned, OpHandoffApplied, OpHandoffApplyFailed,
		OpHookRan, OpHookSkipped, OpOrphansKilled, OpLeadStarted, OpLeadExited, OpLeadRestartLimit,
		OpOutboxEvent, OpIssueFiled, OpIssueChanged, OpIterationStarted, OpReviewVerdict, OpIterationFinished,
		OpStepSummary, OpStepMetrics, OpStepRecorded, OpStepReadBack, OpWorktreeReady, OpWorktreeSetup,
		OpWorktreeRemoved, OpWorktreeKept, OpReviewPending, OpMergeRefused, OpPullRequest, OpPullRequestReview, OpSessionBound,
		OpSessionResume, OpAgentRetry, OpBudgetWarning, OpBudgetExceeded, OpBudgetExtended,
		OpCallbackExited, OpCallbackDropped, OpTakeoverSeen, OpForeignRun, OpCommitDiscarded, OpWriteConflict, OpLeasesMerged, OpForeignPipelineReplaced,
		OpHubLeaderElected}
}
