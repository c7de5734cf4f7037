package ledger

import (
	"errors"
	"os"
	"testing"
)

func TestLoadSnapshotFresh(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	snap := LoadSnapshot(root)
	if errs := snap.Problems(); len(errs) != 0 {
		t.Fatalf("Problems() = %v, want none", errs)
	}
	if snap.Pipeline.Schema != nil || snap.Heartbeat.Schema != nil || snap.Leases.Schema != nil {
		t.Errorf("schema problems on a fresh root: %v %v %v", snap.Pipeline.Schema, snap.Heartbeat.Schema, snap.Leases.Schema)
	}
	if got := snap.Pipeline.Value.Status; got != StatusPlanning {
		t.Errorf("pipeline status = %q, want %q", got, StatusPlanning)
	}
	if snap.HandoffPresent {
		t.Errorf("HandoffPresent = true on a fresh root")
	}
}

func TestLoadSnapshotReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		is      error  // sentinel the error must match, or nil
		code    string // ValidationError code, when is == nil
	}{
		{"missing", func(t *testing.T, p string) { _ = os.Remove(p) }, ErrMissing, ""},
		{"empty", func(t *testing.T, p string) { writeFile(t, p, nil) }, ErrEmpty, ""},
		{"white space", func(t *testing.T, p string) { writeFile(t, p, []byte(" \n\t")) }, ErrEmpty, ""},
		{"folder", func(t *testing.T, p string) {
			_ = os.Remove(p)
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular, ""},
		{"half written", func(t *testing.T, p string) { writeFile(t, p, []byte(`{"schema_version": "1.0.0", "sta`)) }, nil, ProblemInvalidJSON},
		{"not an object", func(t *testing.T, p string) { writeFile(t, p, []byte(`[1, 2]`)) }, nil, ProblemNotObject},
		{"wrong member type", func(t *testing.T, p string) { writeFile(t, p, []byte(`{"status": 7}`)) }, nil, ProblemType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := initRoot(t)
			good := LoadSnapshot(root)
			tt.prepare(t, statePath(root, PipelineFile))
			snap := LoadSnapshot(root)
			err := snap.Pipeline.Err
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != PipelineFile {
				t.Fatalf("Pipeline.Err = %v, want a *FileError for %s", err, PipelineFile)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Pipeline.Err = %v, want %v", err, tt.is)
			}
			var ve *ValidationError
			if tt.code != "" && (!errors.As(err, &ve) || ve.Code != tt.code || ve.File != PipelineFile) {
				t.Errorf("Pipeline.Err = %v, want ValidationError code %s", err, tt.code)
			}
			if snap.Pipeline.HasValue() || !snap.Heartbeat.OK() || !snap.Leases.OK() {
				t.Errorf("only the pipeline should fail: %+v", snap.Problems())
			}
			if got := snap.Problems(); len(got) != 1 || got[0] != err {
				t.Errorf("Problems() = %v, want [%v]", got, err)
			}

			kept := snap.KeepGood(good)
			if !kept.Pipeline.Stale || !kept.Pipeline.HasValue() || kept.Pipeline.Err != err {
				t.Errorf("KeepGood: stale=%v hasValue=%v err=%v, want the old value marked stale with the new error",
					kept.Pipeline.Stale, kept.Pipeline.HasValue(), kept.Pipeline.Err)
			}
			if kept.Pipeline.Value.Status != StatusPlanning {
				t.Errorf("KeepGood kept status %q, want %q", kept.Pipeline.Value.Status, StatusPlanning)
			}
			// A later good load replaces the stale value.
			if err := os.RemoveAll(statePath(root, PipelineFile)); err != nil {
				t.Fatal(err)
			}
			if _, err := Init(root, testNow); err != nil {
				t.Fatal(err)
			}
			if again := LoadSnapshot(root).KeepGood(kept); !again.Pipeline.OK() || again.Pipeline.Stale {
				t.Errorf("after repair: ok=%v stale=%v, want a fresh value", again.Pipeline.OK(), again.Pipeline.Stale)
			}
		})
	}
}

func TestLoadSnapshotPythonLedgerIsShown(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	for _, name := range []string{PipelineFile, HeartbeatFile, LeasesFile} {
		writeFile(t, statePath(root, name), readFile(t, "testdata/python/"+name))
	}
	snap := LoadSnapshot(root)
	if errs := snap.Problems(); len(errs) != 0 {
		t.Fatalf("Problems() = %v, want none", errs)
	}
	if snap.Pipeline.Schema == nil {
		t.Errorf("Pipeline.Schema = nil, want the step extras reported")
	}
	if got := len(snap.Leases.Value.Leases); got != 2 {
		t.Errorf("leases = %d, want 2", got)
	}
}

func TestLoadSnapshotReportsMissingMembers(t *testing.T) {
	t.Parallel()
	root := initRoot(t)
	writeFile(t, statePath(root, PipelineFile), []byte(`{"schema_version":"1.0.0","task_id":null,"run_id":null,`+
		`"goal":"","status":"PLANNING","current_step":null,"steps":[{"id":"S1","title":"t","category":"c","goal":"g",`+
		`"actions":[],"acceptance_criteria":[],"expected_outputs":[]}],"role_lifecycle":{"orchestrator":"idle"},`+
		`"succession":{"enabled":true},"updated_at":"2026-02-12T09:48:00+00:00"}`))
	writeFile(t, statePath(root, LeasesFile), []byte(`{"schema_version":"1.0.0","leases":[{"lane":"x"}]}`))
	snap := LoadSnapshot(root)
	if !snap.Pipeline.OK() || !snap.Leases.OK() {
		t.Fatalf("documents with missing members must still load: %v", snap.Problems())
	}
	check := func(name string, err error, want ...string) {
		t.Helper()
		got := map[string]bool{}
		for _, ve := range Problems(err) {
			if ve.Code == ProblemRequired {
				got[ve.Path] = true
			}
		}
		for _, p := range want {
			if !got[p] {
				t.Errorf("%s: no required problem at %s in %v", name, p, err)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: required problems %v, want %v", name, got, want)
		}
	}
	check(PipelineFile, snap.Pipeline.Schema, "$.steps[0].dependencies", "$.succession.last_takeover_at")
	check(LeasesFile, snap.Leases.Schema, "$.updated_at", "$.leases[0].step_id", "$.leases[0].task_id",
		"$.leases[0].run_id", "$.leases[0].thread_id", "$.leases[0].pid", "$.leases[0].lease_token",
		"$.leases[0].expiry", "$.leases[0].status", "$.leases[0].last_heartbeat_at", "$.leases[0].created_at",
		"$.leases[0].updated_at")
	check(HeartbeatFile, snap.Heartbeat.Schema)
}
