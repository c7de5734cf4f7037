package controller

import (
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// Operations of the SYSTEM events the controller writes. Event types stay
// within the contract's enum; what happened is the payload's "operation".
const (
	opControllerStarted = string(vocab.OpControllerStarted)
	opControllerStopped = string(vocab.OpControllerStopped)
	opInstruction       = string(vocab.OpInstruction)
	opControl           = string(vocab.OpControl)
	opResumed           = string(vocab.OpResumed)
	opRunState          = string(vocab.OpRunState)
	opWorkerOutput      = string(vocab.OpWorkerOutput)
	opLedgerRepaired    = string(vocab.OpLedgerRepaired)
	// opLeaseRenewFailed: a lease could not be renewed (its holder's
	// checks stopped for longer than the TTL, or the register lost it);
	// it was registered afresh.
	opLeaseRenewFailed = string(vocab.OpLeaseRenewFailed)
	// opLedgerWritesHeld: events could not be written for lack of space
	// and were held, in order, until the disk had room; written after
	// them, with when the stall began and how many writes were tried.
	opLedgerWritesHeld = string(vocab.OpLedgerWritesHeld)
)

// Dedup key prefixes. An instruction's key carries the client's message
// id, which is how a resend is recognised even after a restart.
const (
	dedupInstruction = "instruction:"
	dedupControl     = "control:"
)

// eventFactory stamps events with the controller's clock.
type eventFactory struct{ now func() time.Time }

func (f eventFactory) system(taskID, runID, stepID, severity, op string, kv ...any) ledger.Event {
	payload := ledger.ObjectOf(append([]any{"operation", op}, kv...)...)
	return ledger.NewEvent(f.now(), taskID, runID, stepID, ledger.EventSystem, severity, payload)
}

func (f eventFactory) typed(taskID, runID, stepID, eventType, severity string, kv ...any) ledger.Event {
	return ledger.NewEvent(f.now(), taskID, runID, stepID, eventType, severity, ledger.ObjectOf(kv...))
}

// global is the task/run pair of events that belong to no run (controller
// start and stop). The contract requires non-empty ids.
const globalID = "controller"

func routePayload(r ledger.Route) ledger.Object {
	return ledger.ObjectOf("task_id", r.TaskID, "run_id", r.RunID, "active_lane", r.ActiveLane,
		"active_step", r.ActiveStep, "next_action", r.NextAction)
}

func orGlobal(id string) string {
	if id == "" {
		return globalID
	}
	return id
}
