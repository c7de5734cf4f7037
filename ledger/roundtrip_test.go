package ledger

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// reencode parses a document of the named file and encodes it again.
func reencode(t *testing.T, name string, data []byte) (out []byte, validateErr error) {
	t.Helper()
	var (
		v   any
		err error
	)
	switch name {
	case PipelineFile:
		var p PipelineState
		p, err = ParsePipelineState(data)
		v, validateErr = p, p.Validate()
	case HeartbeatFile:
		var h HeartbeatStatus
		h, err = ParseHeartbeatStatus(data)
		v, validateErr = h, h.Validate()
	case LeasesFile:
		var l Leases
		l, err = ParseLeases(data)
		v, validateErr = l, l.Validate()
	default:
		t.Fatalf("reencode: unknown file %s", name)
	}
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	out, err = MarshalDocument(v)
	if err != nil {
		t.Fatalf("marshal %s: %v", name, err)
	}
	return out, validateErr
}

func TestPythonDocumentsRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		wantValid bool
	}{
		// The Python runtime writes step extras its own schema refuses.
		{PipelineFile, false},
		{HeartbeatFile, true},
		{LeasesFile, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := readFile(t, filepath.Join("testdata", "python", tt.name))
			got, verr := reencode(t, tt.name, data)
			if !bytes.Equal(got, data) {
				t.Errorf("re-encoded bytes differ\ngot:\n%s\nwant:\n%s", got, data)
			}
			if (verr == nil) != tt.wantValid {
				t.Errorf("Validate() = %v, want valid=%v", verr, tt.wantValid)
			}
		})
	}
}

func TestPythonPipelineKeepsUnknownFields(t *testing.T) {
	t.Parallel()
	p, err := ParsePipelineState(readFile(t, filepath.Join("testdata", "python", PipelineFile)))
	if err != nil {
		t.Fatalf("ParsePipelineState: %v", err)
	}
	if got, want := p.Steps[0].Extra.Keys(), []string{"planner_source", "retrieval_policy"}; !slices.Equal(got, want) {
		t.Errorf("step extras = %v, want %v", got, want)
	}
	var paths []string
	for _, ve := range Problems(p.Validate()) {
		if ve.Code != ProblemUnknownField {
			t.Errorf("unexpected problem %v", ve)
		}
		paths = append(paths, ve.Path)
	}
	if want := []string{"$.steps[0].planner_source", "$.steps[0].retrieval_policy"}; !slices.Equal(paths, want) {
		t.Errorf("problem paths = %v, want %v", paths, want)
	}
}

func TestPythonEventsRoundTrip(t *testing.T) {
	t.Parallel()
	data := readFile(t, filepath.Join("testdata", "python", EventsFile))
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // after the final newline
	wantTypes := []string{EventSystem, EventLeaseTakeover, "HUMAN", "AGENT"}
	if len(lines) != len(wantTypes) {
		t.Fatalf("got %d lines, want %d", len(lines), len(wantTypes))
	}
	for i, line := range lines {
		e, err := ParseEvent(line)
		if err != nil {
			t.Fatalf("line %d: ParseEvent: %v", i, err)
		}
		if e.EventType != wantTypes[i] {
			t.Errorf("line %d: event_type = %q, want %q", i, e.EventType, wantTypes[i])
		}
		got, err := MarshalLine(e)
		if err != nil {
			t.Fatalf("line %d: MarshalLine: %v", i, err)
		}
		if !bytes.Equal(got, line) {
			t.Errorf("line %d re-encoded\ngot:  %s\nwant: %s", i, got, line)
		}
		verr := e.Validate()
		if contract := slices.Contains(EventTypes(), e.EventType); contract != (verr == nil) {
			t.Errorf("line %d: Validate() = %v for type %s", i, verr, e.EventType)
		}
	}
}

func TestInitFilesRoundTrip(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	for _, name := range []string{PipelineFile, HeartbeatFile, LeasesFile} {
		data := readFile(t, statePath(root, name))
		got, verr := reencode(t, name, data)
		if verr != nil {
			t.Errorf("%s: Validate() = %v, want nil", name, verr)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: re-encoded bytes differ\ngot:\n%s\nwant:\n%s", name, got, data)
		}
	}
	if data := readFile(t, statePath(root, EventsFile)); len(data) != 0 {
		t.Errorf("events.jsonl = %q, want empty", data)
	}
}

func TestStoreFilesRoundTrip(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	s := openStore(t, root)

	p := NewPipelineState(testNow)
	p.TaskID, p.RunID, p.Goal, p.Status, p.CurrentStep = "DKT-7", "RUN-7", "Ship it — 发布", StatusExecute, "S1"
	p.Steps = []Step{{ID: "S1", Title: "Do", Category: "implementation", Goal: "Do it",
		Actions: []string{"a"}, ExpectedOutputs: []string{"report.md"}}}
	p.RoleLifecycle = p.RoleLifecycle.With("controller_lane", "controller")
	if _, err := s.WritePipeline(p); err != nil {
		t.Fatalf("WritePipeline: %v", err)
	}
	h := NewHeartbeatStatus(testNow)
	h.Status, h.LastHeartbeatAt, h.WarningAfterSeconds, h.StaleAfterSeconds = HeartbeatRunning, FormatTime(testNow), 900, 1200
	esc := ""
	h.LastEscalationAt = &esc
	if _, err := s.WriteHeartbeat(h); err != nil {
		t.Fatalf("WriteHeartbeat: %v", err)
	}
	l := NewLeases(testNow)
	l.Leases = []Lease{validLease()}
	if _, err := s.WriteLeases(l); err != nil {
		t.Fatalf("WriteLeases: %v", err)
	}
	for _, name := range []string{PipelineFile, HeartbeatFile, LeasesFile} {
		data := readFile(t, statePath(root, name))
		got, verr := reencode(t, name, data)
		if verr != nil {
			t.Errorf("%s: Validate() = %v, want nil", name, verr)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s: re-encoded bytes differ\ngot:\n%s\nwant:\n%s", name, got, data)
		}
		if !bytes.Contains(data, []byte(`"updated_at": "`+FormatTime(testNow)+`"`)) {
			t.Errorf("%s: updated_at not stamped with the injected clock:\n%s", name, data)
		}
	}
	if err := s.AppendEvent(testEvent(1)); err != nil {
		t.Fatalf("AppendEvent: %v", err)
	}
	if got, want := readFile(t, statePath(root, EventsFile)), testLine(t, 1); !bytes.Equal(got, want) {
		t.Errorf("events.jsonl = %s, want %s", got, want)
	}
}

func validLease() Lease {
	ts := FormatTime(testNow)
	return Lease{Lane: "controller", StepID: "S1", TaskID: "DKT-7", RunID: "RUN-7", ThreadID: "cli-1",
		PID: 4242, LeaseToken: NewLeaseToken(), Expiry: ts, Status: LeaseActive,
		LastHeartbeatAt: ts, CreatedAt: ts, UpdatedAt: ts}
}

func TestFileErrorMessage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	snap := LoadSnapshot(root)
	var fe *FileError
	if !errors.As(snap.Pipeline.Err, &fe) || fe.File != PipelineFile {
		t.Fatalf("Pipeline.Err = %v, want a *FileError for %s", snap.Pipeline.Err, PipelineFile)
	}
	if want := statePath(root, PipelineFile) + ": file is missing"; fe.Error() != want {
		t.Errorf("Error() = %q, want %q", fe.Error(), want)
	}
}
