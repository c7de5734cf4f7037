package vocab

import (
	"slices"

	"github.com/daokit/daokit/i18n"
)

// EventType is an event's type (events.jsonl "event_type"). daokit writes
// only the contract's types, which the ledger declares; AGENT and HUMAN
// are the Python tool's (its LLM path and its dashboard), read back from
// a ledger it wrote.
type EventType string

// The event types.
const (
	EventStepStarted      EventType = "STEP_STARTED"
	EventStepCompleted    EventType = "STEP_COMPLETED"
	EventStepFailed       EventType = "STEP_FAILED"
	EventAcceptancePassed EventType = "ACCEPTANCE_PASSED"
	EventAcceptanceFailed EventType = "ACCEPTANCE_FAILED"
	EventHeartbeatWarning EventType = "HEARTBEAT_WARNING"
	EventHeartbeatStale   EventType = "HEARTBEAT_STALE"
	EventLeaseTakeover    EventType = "LEASE_TAKEOVER"
	// EventSystem: what the controller, a hook or a command did; its
	// payload's operation (Op) says which.
	EventSystem EventType = "SYSTEM"
	// EventAgent: the Python tool's LLM path.
	EventAgent EventType = "AGENT"
	// EventHuman: a person's message through the Python tool's dashboard.
	EventHuman EventType = "HUMAN"
)

// EventCatalog is the message id prefix of the event types' labels.
const EventCatalog = "vocab.event."

// EventTypes lists every event type, the contract's first.
func EventTypes() []EventType {
	return []EventType{EventStepStarted, EventStepCompleted, EventStepFailed, EventAcceptancePassed,
		EventAcceptanceFailed, EventHeartbeatWarning, EventHeartbeatStale, EventLeaseTakeover, EventSystem,
		EventAgent, EventHuman}
}

// Known reports whether t is one of EventTypes.
func (t EventType) Known() bool { return slices.Contains(EventTypes(), t) }

// Label returns t in loc's language; an unknown type is shown as it is.
func (t EventType) Label(loc *i18n.Localizer) string {
	return label(loc, EventCatalog, EventTypes(), t)
}

// Severity is an event's severity (events.jsonl "severity").
type Severity string

// The severities.
const (
	SeverityInfo  Severity = "INFO"
	SeverityWarn  Severity = "WARN"
	SeverityError Severity = "ERROR"
)

// SeverityCatalog is the message id prefix of the severities' labels.
const SeverityCatalog = "vocab.severity."

// Severities lists every severity, mildest first.
func Severities() []Severity { return []Severity{SeverityInfo, SeverityWarn, SeverityError} }
