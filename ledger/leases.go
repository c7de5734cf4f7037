package ledger

import (
	"fmt"
	"strconv"
	"time"
)

// Lease statuses of process_leases.json.
const (
	LeaseActive    = "ACTIVE"
	LeaseReleased  = "RELEASED"
	LeaseExpired   = "EXPIRED"
	LeaseTakenOver = "TAKEN_OVER"
)

// LeaseStatuses lists the contract's lease statuses in order.
func LeaseStatuses() []string {
	return []string{LeaseActive, LeaseReleased, LeaseExpired, LeaseTakenOver}
}

// Leases is state/process_leases.json, the lease register.
type Leases struct {
	SchemaVersion string
	Leases        []Lease
	UpdatedAt     string
	Extra         Object
}

// Lease is one record of the register. Records are never deleted.
type Lease struct {
	Lane            string
	StepID          string
	TaskID          string
	RunID           string
	ThreadID        string
	PID             int
	LeaseToken      string
	Expiry          string
	Status          string
	LastHeartbeatAt string
	CreatedAt       string
	UpdatedAt       string
	Extra           Object
}

// NewLeases returns an empty register.
func NewLeases(now time.Time) Leases {
	return Leases{SchemaVersion: SchemaVersion, UpdatedAt: FormatTime(now)}
}

// Expired reports whether the lease's expiry is at or before now (the
// Python registry's inclusive rule). An unreadable expiry counts as expired.
func (l *Lease) Expired(now time.Time) bool {
	t, err := ParseTime(l.Expiry)
	return err != nil || !t.After(now)
}

// MarshalJSON writes the members in contract order.
func (l Leases) MarshalJSON() ([]byte, error) {
	w := newObjectWriter()
	w.str("schema_version", l.SchemaVersion)
	list(w, "leases", l.Leases, (*Lease).members)
	w.str("updated_at", l.UpdatedAt)
	w.extra(l.Extra)
	return w.bytes()
}

// MarshalJSON writes the members in contract order.
func (l Lease) MarshalJSON() ([]byte, error) { return marshalObject(l.members) }

func (l *Lease) members(w *objectWriter) {
	w.str("lane", l.Lane)
	w.str("step_id", l.StepID)
	w.str("task_id", l.TaskID)
	w.str("run_id", l.RunID)
	w.str("thread_id", l.ThreadID)
	w.int("pid", l.PID)
	w.str("lease_token", l.LeaseToken)
	w.str("expiry", l.Expiry)
	w.str("status", l.Status)
	w.str("last_heartbeat_at", l.LastHeartbeatAt)
	w.str("created_at", l.CreatedAt)
	w.str("updated_at", l.UpdatedAt)
	w.extra(l.Extra)
}

// UnmarshalJSON reads tolerantly; see ParseLeases.
func (l *Leases) UnmarshalJSON(data []byte) error {
	v, err := ParseLeases(data)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLeases reads process_leases.json.
func ParseLeases(data []byte) (Leases, error) {
	var l Leases
	r, err := newFieldReader("$", data)
	if err != nil {
		return l, withFile(err, LeasesFile)
	}
	r.str("schema_version", &l.SchemaVersion)
	r.list("leases", func(_ int, s *fieldReader) {
		var x Lease
		s.str("lane", &x.Lane)
		s.str("step_id", &x.StepID)
		s.str("task_id", &x.TaskID)
		s.str("run_id", &x.RunID)
		s.str("thread_id", &x.ThreadID)
		s.integer("pid", &x.PID)
		s.str("lease_token", &x.LeaseToken)
		s.str("expiry", &x.Expiry)
		s.str("status", &x.Status)
		s.str("last_heartbeat_at", &x.LastHeartbeatAt)
		s.str("created_at", &x.CreatedAt)
		s.str("updated_at", &x.UpdatedAt)
		x.Extra = s.extra()
		l.Leases = append(l.Leases, x)
	})
	r.str("updated_at", &l.UpdatedAt)
	l.Extra = r.extra()
	return l, withFile(r.err(), LeasesFile)
}

// Validate checks l against process_leases.schema.json.
func (l *Leases) Validate() error {
	var c checker
	c.schemaVersion("$.schema_version", l.SchemaVersion)
	for i, x := range l.Leases {
		p := fmt.Sprintf("$.leases[%d]", i)
		c.nonEmpty(p+".lane", x.Lane)
		c.nonEmpty(p+".step_id", x.StepID)
		c.nonEmpty(p+".task_id", x.TaskID)
		c.nonEmpty(p+".run_id", x.RunID)
		c.nonEmpty(p+".thread_id", x.ThreadID)
		if x.PID < 1 {
			c.add(p+".pid", ProblemMinimum, strconv.Itoa(1))
		}
		c.nonEmpty(p+".lease_token", x.LeaseToken)
		c.dateTime(p+".expiry", x.Expiry)
		c.enum(p+".status", x.Status, LeaseStatuses())
		c.dateTime(p+".last_heartbeat_at", x.LastHeartbeatAt)
		c.dateTime(p+".created_at", x.CreatedAt)
		c.dateTime(p+".updated_at", x.UpdatedAt)
		c.noExtra(p, x.Extra)
	}
	c.dateTime("$.updated_at", l.UpdatedAt)
	c.noExtra("$", l.Extra)
	return withFile(c.err(), LeasesFile)
}
