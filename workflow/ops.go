package workflow

// Operations of the SYSTEM events in which the controller records a
// workflow (event types stay within the contract's enum; the payload's
// "operation" says what happened). The window reads them back.
const (
	OpIterationStarted  = "ITERATION_STARTED"
	OpReviewVerdict     = "REVIEW_VERDICT"
	OpIterationFinished = "ITERATION_FINISHED"
	OpStepSummary       = "STEP_SUMMARY"
	OpStepMetrics       = "STEP_METRICS"
)
