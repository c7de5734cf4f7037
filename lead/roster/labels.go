package roster

// Actor is the outbox identity of role's Lead (its assignee name, the
// author of its comments and the name of its cursor).
func Actor(role string) string { return "lead:" + role }

// IsLead reports whether an outbox actor is a Lead.
func IsLead(actor string) bool { return len(actor) > 5 && actor[:5] == "lead:" }

// The labels a Lead manages.
const (
	LabelQueued   = "state:queued"
	LabelRunning  = "state:running"
	LabelBlocked  = "state:blocked"
	LabelDone     = "state:done"
	LabelFailed   = "state:failed"
	LabelReview   = "state:review"
	LabelAccepted = "decision:accepted"
	LabelNeeded   = "decision:needed"
)

// To is the label that addresses an issue to role.
func To(role string) string { return "to:" + role }

// RetryCommand starts a comment that sends a failed (or held for
// review) issue back to a Worker: the Lead's protocol, which the window's
// /retry #N writes for the person.
const RetryCommand = "/retry"
