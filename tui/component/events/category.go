package events

import (
	"strings"

	"github.com/daokit/daokit/ledger"
)

// Categories of events for the type filter. Most of a run's events are
// of the contract type SYSTEM, so the contract type alone cannot tell
// worker output from run states from instructions: the payload's
// operation does.
const (
	catOutput      = "output"
	catRunState    = "run_state"
	catLease       = "lease"
	catInstruction = "instruction"
	catHook        = "hook"
	catError       = "error"
	catStep        = "step"
	catHeartbeat   = "heartbeat"
	catOther       = "other"
)

// categoryOf says which kind of event ev is, from its type and payload.
func categoryOf(ev *ledger.Event) string {
	op := ev.Payload.String("operation")
	switch {
	case ev.Severity == ledger.SeverityError || ev.EventType == ledger.EventStepFailed || ev.EventType == ledger.EventAcceptanceFailed:
		return catError
	case op == "WORKER_OUTPUT":
		return catOutput
	case op == "RUN_STATE":
		return catRunState
	case ev.EventType == ledger.EventLeaseTakeover || strings.Contains(op, "LEASE"):
		return catLease
	case op == "INSTRUCTION_RECEIVED" || op == "INSTRUCTION_RESUMED" || op == "CONTROL_RECEIVED":
		return catInstruction
	case strings.HasPrefix(op, "HOOK_"):
		return catHook
	case strings.HasPrefix(ev.EventType, "HEARTBEAT_"):
		return catHeartbeat
	case ev.EventType != ledger.EventSystem:
		return catStep
	}
	return catOther
}
