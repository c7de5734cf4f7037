package workflow

import "github.com/daokit/daokit/vocab"

// Operations of the SYSTEM events in which the controller records a
// workflow (event types stay within the contract's enum; the payload's
// "operation" says what happened). The window reads them back.
const (
	OpIterationStarted  = string(vocab.OpIterationStarted)
	OpReviewVerdict     = string(vocab.OpReviewVerdict)
	OpIterationFinished = string(vocab.OpIterationFinished)
	OpStepSummary       = string(vocab.OpStepSummary)
	OpStepMetrics       = string(vocab.OpStepMetrics)
)
