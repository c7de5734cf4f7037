package controller

import (
	"github.com/daokit/daokit/worker"
	"github.com/daokit/daokit/worker/transcript"
)

// failureReasons maps the agent CLIs' failure kinds to reason codes.
var failureReasons = map[string]string{
	transcript.FailAuth:          ReasonAgentAuth,
	transcript.FailNotLoggedIn:   ReasonAgentNotLoggedIn,
	transcript.FailRateLimited:   ReasonAgentRateLimited,
	transcript.FailProvider:      ReasonAgentProvider,
	transcript.FailMaxTurns:      ReasonAgentMaxTurns,
	transcript.FailOptionRefused: ReasonAgentOptionRefused,
}

// agentReason is the reason code of what an agent CLI said went wrong,
// or "". A refused login, a provider's error or a refused command line
// comes first: nothing the agent did counts then. A refused edit or
// command comes next, before a turn limit it may have caused by trying
// other ways round the refusal.
func agentReason(s worker.Summary) string {
	reason := failureReasons[s.Failure]
	switch {
	case reason != "" && reason != ReasonAgentMaxTurns:
		return reason
	case len(s.Denied) > 0:
		return ReasonAgentDenied
	}
	return reason
}

// IsAgentReason reports whether reason is one an agent CLI's own verdict
// gave (AGENT_*), which readers word as the agent's failure.
func IsAgentReason(reason string) bool {
	if reason == ReasonAgentDenied {
		return true
	}
	for _, r := range failureReasons {
		if r == reason {
			return true
		}
	}
	return false
}
