package compact

import (
	"fmt"
	"strings"

	"github.com/daokit/daokit/compact/internal/rawjson"
	"github.com/daokit/daokit/config"
)

// Triggers are the thresholds that make the window compact its context.
// The zero value never compacts on size or repeats; DefaultTriggers holds
// the shipped values. In daokit.toml:
//
//	[compact]
//	max_entries = 500
//	max_bytes = 262144
//	repeated_status = 3
type Triggers struct {
	// MaxEntries makes the window compact once the lists hold more than
	// this many entries (Context.Len). 0 turns the check off.
	MaxEntries int `toml:"max_entries"`
	// MaxBytes makes the window compact once the context's compact JSON
	// is longer than this many bytes (Context.Size). 0 turns it off.
	MaxBytes int `toml:"max_bytes"`
	// RepeatedStatus makes the window compact once the last this-many
	// status reports all report the same status of the same subject
	// (event_type, task_id, run_id, step_id, lane). 0 turns it off; 1 is
	// refused, as every report would trigger.
	RepeatedStatus int `toml:"repeated_status"`
}

// DefaultTriggers returns the shipped thresholds: 500 entries, 256 KiB,
// three repeated status reports. They keep a context far below what a
// coding agent's prompt can hold while compacting rarely.
func DefaultTriggers() Triggers {
	return Triggers{MaxEntries: 500, MaxBytes: 256 << 10, RepeatedStatus: 3}
}

// Validate reports thresholds that cannot work, with their values.
func (t Triggers) Validate() error {
	switch {
	case t.MaxEntries < 0:
		return fmt.Errorf("compact triggers: max_entries must be 0 (off) or positive, got %d", t.MaxEntries)
	case t.MaxBytes < 0:
		return fmt.Errorf("compact triggers: max_bytes must be 0 (off) or positive, got %d", t.MaxBytes)
	case t.RepeatedStatus < 0 || t.RepeatedStatus == 1:
		return fmt.Errorf("compact triggers: repeated_status must be 0 (off) or at least 2, got %d", t.RepeatedStatus)
	}
	return nil
}

// Change is what the window observed since it last asked Decide.
type Change struct {
	// Instruction is a new instruction the person sent, "" if none.
	Instruction string
	// HealthBefore and HealthAfter are the health state before and after
	// the latest observation: a heartbeat status (IDLE, RUNNING, WARNING,
	// STALE) or LEASE_TAKEOVER after a takeover. Case and surrounding
	// space do not matter; equal values mean the state did not change.
	HealthBefore, HealthAfter string
}

// Trigger is one reason to compact.
type Trigger int

// Triggers, in the order Decide reports them.
const (
	// TriggerEntries means the lists hold more entries than MaxEntries.
	TriggerEntries Trigger = iota + 1
	// TriggerBytes means the context is longer than MaxBytes.
	TriggerBytes
	// TriggerRepeatedStatus means the same status was reported
	// RepeatedStatus times in a row.
	TriggerRepeatedStatus
	// TriggerInstruction means a new instruction arrived while older logs remain.
	TriggerInstruction
	// TriggerHealth means the health state entered or left WARNING, STALE or
	// LEASE_TAKEOVER.
	TriggerHealth
)

var triggerNames = map[Trigger]string{
	TriggerEntries: "entries", TriggerBytes: "bytes", TriggerRepeatedStatus: "repeated_status",
	TriggerInstruction: "new_instruction", TriggerHealth: "health",
}

// String returns the trigger's name, as logs and the window show it.
func (t Trigger) String() string {
	if n, ok := triggerNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Trigger(%d)", int(t))
}

// Decision says whether to compact, and why.
type Decision struct {
	// Reasons lists every trigger that fired, in Trigger order; none
	// means do not compact.
	Reasons []Trigger
}

// Compact reports whether any trigger fired.
func (d Decision) Compact() bool { return len(d.Reasons) > 0 }

// alertStates are the health states whose start and end call for a
// fresh, short context.
var alertStates = []string{"WARNING", "STALE", "LEASE_TAKEOVER"}

// Decide tells the window whether to compact c after the change ch. It
// reads c without changing it; its cost grows with the number of list
// members, not with the entries (RepeatedStatus reads only the last
// reports).
func (t Triggers) Decide(c *Context, ch Change) Decision {
	var d Decision
	if t.MaxEntries > 0 && c.Len() > t.MaxEntries {
		d.Reasons = append(d.Reasons, TriggerEntries)
	}
	if t.MaxBytes > 0 && c.Size() > t.MaxBytes {
		d.Reasons = append(d.Reasons, TriggerBytes)
	}
	if t.RepeatedStatus >= 2 && repeatedStatus(c, t.RepeatedStatus) {
		d.Reasons = append(d.Reasons, TriggerRepeatedStatus)
	}
	if trim(ch.Instruction) != "" && hasLogs(c) {
		d.Reasons = append(d.Reasons, TriggerInstruction)
	}
	before := strings.ToUpper(trim(ch.HealthBefore))
	after := strings.ToUpper(trim(ch.HealthAfter))
	if before != after && (indexOf(alertStates, before) >= 0 || indexOf(alertStates, after) >= 0) {
		d.Reasons = append(d.Reasons, TriggerHealth)
	}
	return d
}

// hasLogs reports whether c holds entries that a new instruction may make
// irrelevant; evidence paths are not among them.
func hasLogs(c *Context) bool {
	for _, m := range c.members {
		if l, ok := listOf(m.key); ok && l != EvidencePaths && m.items != nil && len(m.items.raws) > 0 {
			return true
		}
	}
	return false
}

// repeatedStatus reports whether the last n status reports name one
// status of one subject.
func repeatedStatus(c *Context, n int) bool {
	m := c.find(StatusReports.String())
	if m == nil || m.items == nil || len(m.items.raws) < n {
		return false
	}
	tail := m.items.raws[len(m.items.raws)-n:]
	first, ok := statusOf(tail[0])
	if !ok {
		return false
	}
	for _, raw := range tail[1:] {
		if s, ok := statusOf(raw); !ok || s != first {
			return false
		}
	}
	return true
}

// statusOf returns the status and subject of a status report as trimmed
// text (other JSON values as their JSON), and false when its status is not
// non-blank text.
func statusOf(raw []byte) ([6]string, bool) {
	var key [6]string
	names := [6]string{"status", "event_type", "task_id", "run_id", "step_id", "lane"}
	var buf []byte
	textStatus := false
	for _, m := range rawjson.Unique(rawjson.Members(raw, nil)) {
		i := indexOf(names[:], string(rawjson.Text(m.Key, &buf)))
		if i < 0 {
			continue
		}
		if isString(m.Value) {
			key[i] = string(rawjson.TrimSpace(rawjson.Text(m.Value, &buf)))
		} else {
			key[i] = string(m.Value)
		}
		if i == 0 {
			textStatus = isString(m.Value) && key[0] != ""
		}
	}
	return key, textStatus
}

// TriggersOf reads the thresholds of daokit.toml's [compact] (validated
// by config with the rules of Validate).
func TriggersOf(c config.Compact) Triggers {
	return Triggers{MaxEntries: c.MaxEntries, MaxBytes: c.MaxBytes, RepeatedStatus: c.RepeatedStatus}
}
