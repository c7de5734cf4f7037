package compact

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTriggersDecide(t *testing.T) {
	t.Parallel()
	reports := func(statuses ...string) string {
		var items []string
		for i, s := range statuses {
			items = append(items, fmt.Sprintf(`{"step_id": "S1", "status": %q, "seq": %d}`, s, i))
		}
		return `{"status_reports": [` + strings.Join(items, ",") + `]}`
	}
	trig := Triggers{MaxEntries: 4, MaxBytes: 200, RepeatedStatus: 3}
	tests := []struct {
		name   string
		ctx    string
		change Change
		want   []Trigger
	}{
		{"nothing", `{"execution_logs": [{"a": 1}]}`, Change{}, nil},
		{"entries", `{"execution_logs": [1, 2, 3, 4, 5]}`, Change{}, []Trigger{TriggerEntries}},
		{"bytes", `{"notes": "` + strings.Repeat("x", 200) + `"}`, Change{}, []Trigger{TriggerBytes}},
		{"repeated status", reports("PENDING", "RUNNING", " RUNNING ", "RUNNING"), Change{}, []Trigger{TriggerRepeatedStatus}},
		{"status changed in the tail", reports("RUNNING", "RUNNING", "DONE"), Change{}, nil},
		{"too few reports", reports("RUNNING", "RUNNING"), Change{}, nil},
		{"blank status never repeats", reports("", "", ""), Change{}, nil},
		{"instruction with logs", `{"status_reports": [{"status": "RUNNING"}]}`, Change{Instruction: "fix the login"}, []Trigger{TriggerInstruction}},
		{"instruction with only evidence", `{"evidence_paths": ["a"]}`, Change{Instruction: "fix the login"}, nil},
		{"blank instruction", `{"execution_logs": [{}]}`, Change{Instruction: "  "}, nil},
		{"entering WARNING", `{}`, Change{HealthBefore: "RUNNING", HealthAfter: "warning"}, []Trigger{TriggerHealth}},
		{"leaving STALE", `{}`, Change{HealthBefore: "STALE", HealthAfter: "RUNNING"}, []Trigger{TriggerHealth}},
		{"takeover", `{}`, Change{HealthBefore: "STALE", HealthAfter: "LEASE_TAKEOVER"}, []Trigger{TriggerHealth}},
		{"still STALE", `{}`, Change{HealthBefore: "STALE", HealthAfter: " stale "}, nil},
		{"IDLE to RUNNING", `{}`, Change{HealthBefore: "IDLE", HealthAfter: "RUNNING"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := trig.Decide(mustParse(t, tt.ctx), tt.change)
			if !slices.Equal(d.Reasons, tt.want) || d.Compact() != (len(tt.want) > 0) {
				t.Errorf("got %v (compact %v), want %v", d.Reasons, d.Compact(), tt.want)
			}
		})
	}
	if d := (Triggers{}).Decide(mustParse(t, reports("A", "A", "A", "A", "A", "A")), Change{}); d.Compact() {
		t.Errorf("zero Triggers fired: %v", d.Reasons)
	}
}

func TestTriggersFireAfterAppendAndSettleAfterCompact(t *testing.T) {
	t.Parallel()
	trig := DefaultTriggers()
	c := &Context{}
	for i := range 3 {
		if err := c.Append(StatusReports, json.RawMessage(fmt.Sprintf(`{"step_id":"S1","status":"RUNNING","seq":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if d := trig.Decide(c, Change{}); !slices.Equal(d.Reasons, []Trigger{TriggerRepeatedStatus}) {
		t.Fatalf("got %v, want repeated_status", d.Reasons)
	}
	out, _ := Compact(c, Facts{})
	if d := trig.Decide(out, Change{}); d.Compact() {
		t.Errorf("compacted context still triggers: %v", d.Reasons)
	}
}

func TestTriggersValidate(t *testing.T) {
	t.Parallel()
	if err := DefaultTriggers().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	if err := (Triggers{}).Validate(); err != nil {
		t.Errorf("zero value invalid: %v", err)
	}
	for _, bad := range []Triggers{{MaxEntries: -1}, {MaxBytes: -5}, {RepeatedStatus: 1}, {RepeatedStatus: -2}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", bad)
		}
	}
}

func TestTriggerNames(t *testing.T) {
	t.Parallel()
	for tr, want := range map[Trigger]string{TriggerEntries: "entries", TriggerHealth: "health", Trigger(99): "Trigger(99)"} {
		if got := tr.String(); got != want {
			t.Errorf("%d: got %q, want %q", int(tr), got, want)
		}
	}
}
