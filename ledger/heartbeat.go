package ledger

import (
	"strconv"
	"time"
)

// Heartbeat statuses of heartbeat_status.json.
const (
	HeartbeatIdle    = "IDLE"
	HeartbeatRunning = "RUNNING"
	HeartbeatWarning = "WARNING"
	HeartbeatStale   = "STALE"
	HeartbeatBlocked = "BLOCKED"
)

// HeartbeatStatuses lists the contract's heartbeat statuses in order.
func HeartbeatStatuses() []string {
	return []string{HeartbeatIdle, HeartbeatRunning, HeartbeatWarning, HeartbeatStale, HeartbeatBlocked}
}

// HeartbeatStatus is state/heartbeat_status.json.
type HeartbeatStatus struct {
	SchemaVersion   string
	Status          string
	LastHeartbeatAt string // "" is null
	ReasonCode      string // "" is null
	// WarningAfterSeconds and StaleAfterSeconds are optional; 0 leaves
	// them out of the file.
	WarningAfterSeconds int
	StaleAfterSeconds   int
	// LastEscalationAt is optional: nil leaves it out, a pointer to ""
	// writes null.
	LastEscalationAt *string
	UpdatedAt        string
	Extra            Object
}

// NewHeartbeatStatus returns the document `daokit init` writes: IDLE, no
// heartbeat yet.
func NewHeartbeatStatus(now time.Time) HeartbeatStatus {
	return HeartbeatStatus{SchemaVersion: SchemaVersion, Status: HeartbeatIdle, UpdatedAt: FormatTime(now)}
}

// MarshalJSON writes the members in the Python tool's order.
func (h HeartbeatStatus) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	w.str("schema_version", h.SchemaVersion)
	w.str("status", h.Status)
	w.nullable("last_heartbeat_at", h.LastHeartbeatAt)
	w.nullable("reason_code", h.ReasonCode)
	if h.WarningAfterSeconds != 0 {
		w.int("warning_after_seconds", h.WarningAfterSeconds)
	}
	if h.StaleAfterSeconds != 0 {
		w.int("stale_after_seconds", h.StaleAfterSeconds)
	}
	if h.LastEscalationAt != nil {
		w.nullable("last_escalation_at", *h.LastEscalationAt)
	}
	w.str("updated_at", h.UpdatedAt)
	w.extra(h.Extra)
	return w.bytes()
}

// UnmarshalJSON reads tolerantly; see ParseHeartbeatStatus.
func (h *HeartbeatStatus) UnmarshalJSON(data []byte) error {
	v, err := ParseHeartbeatStatus(data)
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// ParseHeartbeatStatus reads heartbeat_status.json.
func ParseHeartbeatStatus(data []byte) (HeartbeatStatus, error) {
	var h HeartbeatStatus
	r, err := newFieldReader("$", data)
	if err != nil {
		return h, withFile(err, HeartbeatFile)
	}
	r.str("schema_version", &h.SchemaVersion)
	r.str("status", &h.Status)
	r.str("last_heartbeat_at", &h.LastHeartbeatAt)
	r.str("reason_code", &h.ReasonCode)
	r.integer("warning_after_seconds", &h.WarningAfterSeconds)
	r.integer("stale_after_seconds", &h.StaleAfterSeconds)
	r.optStr("last_escalation_at", &h.LastEscalationAt)
	r.str("updated_at", &h.UpdatedAt)
	h.Extra = r.extra()
	return h, withFile(r.err(), HeartbeatFile)
}

// Validate checks h against heartbeat_status.schema.json, plus the
// validator's rule that stale_after >= warning_after.
func (h *HeartbeatStatus) Validate() error {
	var c checker
	c.schemaVersion("$.schema_version", h.SchemaVersion)
	c.enum("$.status", h.Status, HeartbeatStatuses())
	c.optionalDateTime("$.last_heartbeat_at", h.LastHeartbeatAt)
	if h.WarningAfterSeconds < 0 {
		c.add("$.warning_after_seconds", ProblemMinimum, "1")
	}
	if h.StaleAfterSeconds < 0 {
		c.add("$.stale_after_seconds", ProblemMinimum, "1")
	}
	if h.WarningAfterSeconds > 0 && h.StaleAfterSeconds > 0 && h.StaleAfterSeconds < h.WarningAfterSeconds {
		c.add("$.stale_after_seconds", ProblemThresholdOrder, "warning_after_seconds ("+strconv.Itoa(h.WarningAfterSeconds)+")")
	}
	if h.LastEscalationAt != nil {
		c.optionalDateTime("$.last_escalation_at", *h.LastEscalationAt)
	}
	c.dateTime("$.updated_at", h.UpdatedAt)
	c.noExtra("$", h.Extra)
	return withFile(c.err(), HeartbeatFile)
}
