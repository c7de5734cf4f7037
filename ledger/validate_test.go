package ledger

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// problemCase is a document that must be rejected at path with code.
type problemCase struct {
	name     string
	validate func() error
	path     string
	code     string
}

func problemCases() []problemCase {
	pipeline := func(edit func(*PipelineState)) func() error {
		return func() error {
			p := NewPipelineState(testNow)
			edit(&p)
			return p.Validate()
		}
	}
	heartbeat := func(edit func(*HeartbeatStatus)) func() error {
		return func() error {
			h := NewHeartbeatStatus(testNow)
			edit(&h)
			return h.Validate()
		}
	}
	leases := func(edit func(*Lease)) func() error {
		return func() error {
			l := NewLeases(testNow)
			x := validLease()
			edit(&x)
			l.Leases = []Lease{x}
			return l.Validate()
		}
	}
	event := func(edit func(*Event)) func() error {
		return func() error {
			e := testEvent(1)
			edit(&e)
			return e.Validate()
		}
	}
	return []problemCase{
		{"pipeline schema_version", pipeline(func(p *PipelineState) { p.SchemaVersion = "2.0.0" }), "$.schema_version", ProblemConst},
		{"pipeline status enum", pipeline(func(p *PipelineState) { p.Status = "RUNNING" }), "$.status", ProblemEnum},
		{"pipeline date-only updated_at", pipeline(func(p *PipelineState) { p.UpdatedAt = "2026-02-12" }), "$.updated_at", ProblemDateTime},
		{"pipeline unknown field", pipeline(func(p *PipelineState) { p.Extra = ObjectOf("color", "red") }), "$.color", ProblemUnknownField},
		{"pipeline step extra", pipeline(func(p *PipelineState) {
			p.Steps = []Step{{ID: "S1", Title: "t", Category: "c", Goal: "g", Extra: ObjectOf("planner_source", "x")}}
		}), "$.steps[0].planner_source", ProblemUnknownField},
		{"pipeline empty lifecycle value", pipeline(func(p *PipelineState) { p.RoleLifecycle = p.RoleLifecycle.With("x", "") }), "$.role_lifecycle.x", ProblemEmpty},
		{"heartbeat status enum", heartbeat(func(h *HeartbeatStatus) { h.Status = "ACTIVE" }), "$.status", ProblemEnum},
		{"heartbeat stale before warning", heartbeat(func(h *HeartbeatStatus) { h.WarningAfterSeconds, h.StaleAfterSeconds = 900, 100 }), "$.stale_after_seconds", ProblemThresholdOrder},
		{"heartbeat Z-less timestamp", heartbeat(func(h *HeartbeatStatus) { h.LastHeartbeatAt = "2026-02-12T09:48:00" }), "$.last_heartbeat_at", ProblemDateTime},
		{"lease pid 0", leases(func(l *Lease) { l.PID = 0 }), "$.leases[0].pid", ProblemMinimum},
		{"lease status enum", leases(func(l *Lease) { l.Status = "GONE" }), "$.leases[0].status", ProblemEnum},
		{"lease date-only expiry", leases(func(l *Lease) { l.Expiry = "2026-02-12" }), "$.leases[0].expiry", ProblemDateTime},
		{"lease unknown field", leases(func(l *Lease) { l.Extra = ObjectOf("color", "red") }), "$.leases[0].color", ProblemUnknownField},
		{"event severity", event(func(e *Event) { e.Severity = "DEBUG" }), "$.severity", ProblemEnum},
		{"event type", event(func(e *Event) { e.EventType = "HUMAN" }), "$.event_type", ProblemEnum},
		{"event date-only timestamp", event(func(e *Event) { e.Timestamp = "2026-02-12" }), "$.timestamp", ProblemDateTime},
		{"event schema_version", event(func(e *Event) { e.SchemaVersion = "" }), "$.schema_version", ProblemConst},
		{"event empty task", event(func(e *Event) { e.TaskID = "" }), "$.task_id", ProblemEmpty},
		{"event unknown field", event(func(e *Event) { e.Extra = ObjectOf("color", "red") }), "$.color", ProblemUnknownField},
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range problemCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.validate()
			if err == nil {
				t.Fatalf("Validate() = nil, want a problem at %s", tt.path)
			}
			var found bool
			for _, ve := range Problems(err) {
				if ve.Path == tt.path && ve.Code == tt.code {
					found = true
				}
			}
			if !found {
				t.Errorf("Validate() = %v, want code %q at %s", err, tt.code, tt.path)
			}
			if !strings.Contains(err.Error(), tt.path) {
				t.Errorf("message %q does not name %s", err.Error(), tt.path)
			}
		})
	}
}

func TestParseRejectsWrongShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		parse func([]byte) error
		input string
		path  string
		code  string
	}{
		{"pipeline not JSON", parsePipelineErr, `{"status":`, "$", ProblemInvalidJSON},
		{"pipeline array", parsePipelineErr, `[]`, "$", ProblemNotObject},
		{"pipeline steps not a list", parsePipelineErr, `{"steps":{}}`, "$.steps", ProblemType},
		{"pipeline step not an object", parsePipelineErr, `{"steps":[1]}`, "$.steps[0]", ProblemType},
		{"heartbeat fractional threshold", parseHeartbeatErr, `{"warning_after_seconds":1.5}`, "$.warning_after_seconds", ProblemType},
		{"leases pid string", parseLeasesErr, `{"leases":[{"pid":"1"}]}`, "$.leases[0].pid", ProblemType},
		{"event payload list", parseEventErr, `{"payload":[]}`, "$.payload", ProblemType},
		{"event trailing data", parseEventErr, `{} {}`, "$", ProblemInvalidJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.parse([]byte(tt.input))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("parse(%s) = %v, want a *ValidationError", tt.input, err)
			}
			if ve.Path != tt.path || ve.Code != tt.code {
				t.Errorf("parse(%s) = %s %s, want %s %s", tt.input, ve.Path, ve.Code, tt.path, tt.code)
			}
		})
	}
}

func parsePipelineErr(b []byte) error  { _, err := ParsePipelineState(b); return err }
func parseHeartbeatErr(b []byte) error { _, err := ParseHeartbeatStatus(b); return err }
func parseLeasesErr(b []byte) error    { _, err := ParseLeases(b); return err }
func parseEventErr(b []byte) error     { _, err := ParseEvent(b); return err }

func TestStoreRefusesInvalidDocuments(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)
	before := map[string][]byte{}
	for _, name := range StateFiles() {
		before[name] = readFile(t, statePath(root, name))
	}

	p := NewPipelineState(testNow)
	p.Status = "RUNNING"
	_, perr := s.WritePipeline(p)
	h := NewHeartbeatStatus(testNow)
	h.WarningAfterSeconds, h.StaleAfterSeconds = 10, 5
	_, herr := s.WriteHeartbeat(h)
	l := NewLeases(testNow)
	bad := validLease()
	bad.PID = 0
	l.Leases = []Lease{bad}
	_, lerr := s.WriteLeases(l)
	e := testEvent(1)
	e.Severity = "LOUD"
	eerr := s.AppendEvent(e)
	berr := s.AppendEvents([]Event{testEvent(2), e})

	for _, tc := range []struct {
		what string
		err  error
		path string
	}{
		{"WritePipeline", perr, "$.status"},
		{"WriteHeartbeat", herr, "$.stale_after_seconds"},
		{"WriteLeases", lerr, "$.leases[0].pid"},
		{"AppendEvent", eerr, "$.severity"},
		{"AppendEvents", berr, "$.severity"},
	} {
		var ve *ValidationError
		if !errors.As(tc.err, &ve) || ve.Path != tc.path {
			t.Errorf("%s = %v, want a *ValidationError at %s", tc.what, tc.err, tc.path)
		}
	}
	for _, name := range StateFiles() {
		if got := readFile(t, statePath(root, name)); !bytes.Equal(got, before[name]) {
			t.Errorf("%s changed after refused writes:\n%s", name, got)
		}
	}
}
