package ledger

import (
	"fmt"
	"time"
)

// Event types of the contract. Anything else a tool writes is read but
// refused by Validate.
const (
	EventStepStarted      = "STEP_STARTED"
	EventStepCompleted    = "STEP_COMPLETED"
	EventStepFailed       = "STEP_FAILED"
	EventAcceptancePassed = "ACCEPTANCE_PASSED"
	EventAcceptanceFailed = "ACCEPTANCE_FAILED"
	EventHeartbeatWarning = "HEARTBEAT_WARNING"
	EventHeartbeatStale   = "HEARTBEAT_STALE"
	EventLeaseTakeover    = "LEASE_TAKEOVER"
	EventSystem           = "SYSTEM"
	SeverityInfo          = "INFO"
	SeverityWarn          = "WARN"
	SeverityError         = "ERROR"
)

// EventTypes lists the contract's event types in order.
func EventTypes() []string {
	return []string{EventStepStarted, EventStepCompleted, EventStepFailed, EventAcceptancePassed,
		EventAcceptanceFailed, EventHeartbeatWarning, EventHeartbeatStale, EventLeaseTakeover, EventSystem}
}

// Severities lists the contract's severities in order.
func Severities() []string { return []string{SeverityInfo, SeverityWarn, SeverityError} }

// Event is one line of state/events.jsonl.
type Event struct {
	SchemaVersion string
	EventID       string
	TaskID        string
	RunID         string
	StepID        string // "" is null (a global event)
	EventType     string
	Severity      string
	Timestamp     string
	Payload       Object
	DedupKey      string // "" is null
	Extra         Object
}

// NewEvent returns an event with a fresh id and timestamp. The payload is
// built with ObjectOf.
func NewEvent(now time.Time, taskID, runID, stepID, eventType, severity string, payload Object) Event {
	return Event{
		SchemaVersion: SchemaVersion,
		EventID:       NewEventID(),
		TaskID:        taskID,
		RunID:         runID,
		StepID:        stepID,
		EventType:     eventType,
		Severity:      severity,
		Timestamp:     FormatTime(now),
		Payload:       payload,
	}
}

// MarshalJSON writes the envelope in contract order.
func (e Event) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	w.str("schema_version", e.SchemaVersion)
	w.str("event_id", e.EventID)
	w.str("task_id", e.TaskID)
	w.str("run_id", e.RunID)
	w.nullable("step_id", e.StepID)
	w.str("event_type", e.EventType)
	w.str("severity", e.Severity)
	w.str("timestamp", e.Timestamp)
	payload := e.Payload
	if payload == nil {
		payload = Object{}
	}
	w.value("payload", payload)
	w.nullable("dedup_key", e.DedupKey)
	w.extra(e.Extra)
	return w.bytes()
}

// UnmarshalJSON reads tolerantly; see ParseEvent.
func (e *Event) UnmarshalJSON(data []byte) error {
	v, err := ParseEvent(data)
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// ParseEvent reads one events.jsonl line (without or with its newline).
func ParseEvent(line []byte) (Event, error) {
	var e Event
	r, err := newFieldReader("$", line)
	if err != nil {
		return e, withFile(err, EventsFile)
	}
	r.str("schema_version", &e.SchemaVersion)
	r.str("event_id", &e.EventID)
	r.str("task_id", &e.TaskID)
	r.str("run_id", &e.RunID)
	r.str("step_id", &e.StepID)
	r.str("event_type", &e.EventType)
	r.str("severity", &e.Severity)
	r.str("timestamp", &e.Timestamp)
	r.object("payload", &e.Payload)
	r.str("dedup_key", &e.DedupKey)
	e.Extra = r.extra()
	return e, withFile(r.err(), EventsFile)
}

// Validate checks e against events.schema.json.
func (e *Event) Validate() error {
	var c checker
	c.schemaVersion("$.schema_version", e.SchemaVersion)
	c.nonEmpty("$.event_id", e.EventID)
	c.nonEmpty("$.task_id", e.TaskID)
	c.nonEmpty("$.run_id", e.RunID)
	c.enum("$.event_type", e.EventType, EventTypes())
	c.enum("$.severity", e.Severity, Severities())
	c.dateTime("$.timestamp", e.Timestamp)
	c.noExtra("$", e.Extra)
	return withFile(c.err(), EventsFile)
}

// String is a one-line summary for logs.
func (e Event) String() string {
	return fmt.Sprintf("%s %s %s/%s step=%s", e.Timestamp, e.EventType, e.TaskID, e.RunID, e.StepID)
}
