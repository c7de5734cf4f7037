package compact

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/daokit/daokit/ledger"
)

// indentJSON writes compact JSON in Encode's form, so that expectations
// read as plain JSON.
func indentJSON(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		t.Fatalf("bad expectation %s: %v", s, err)
	}
	return buf.String() + "\n"
}

func mustParse(t testing.TB, s string) *Context {
	t.Helper()
	c, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return c
}

// pythonRelay is the relay_context of the Python DAOKit's
// tests/hooks/test_compaction.py.
const pythonRelay = `{"goal": "Keep observer relay context compact and deterministic",
 "constraints": ["Do not rename CLI arguments", "Keep schema_version=1.0.0 semantics"],
 "latest_instruction": "Implement DKT-022 compaction keep/drop policy",
 "current_blockers": ["Need deterministic noise pruning"],
 "controller_route_summary": {"task_id": "DKT-022", "run_id": "RUN-022", "active_lane": "controller", "active_step": "S1", "next_action": "verify"},
 "transient_note": "this should be dropped"}`

const pythonRelayKept = `{"goal":"Keep observer relay context compact and deterministic",
 "constraints":["Do not rename CLI arguments","Keep schema_version=1.0.0 semantics"],
 "latest_instruction":"Implement DKT-022 compaction keep/drop policy",
 "current_blockers":["Need deterministic noise pruning"],
 "controller_route_summary":{"task_id":"DKT-022","run_id":"RUN-022","active_lane":"controller","active_step":"S1","next_action":"verify"}}`

// pythonLedger is what the Python fixture's pipeline_state knows.
var pythonLedger = Facts{Goal: "Implement compaction keep/drop policy", Route: ledger.Route{TaskID: "DKT-022", RunID: "RUN-022"}}

func TestCompactRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		known Facts
		in    string
		want  string
	}{{
		// test_keep_drop_policy_preserves_required_fields_and_prunes_noise
		name:  "python keep/drop policy",
		known: pythonLedger,
		in: `{"relay_context": ` + pythonRelay + `,
			"execution_logs": [
				{"step_id": "S1", "status": "completed", "message": "old completion"},
				{"step_id": "S1", "status": "running", "message": "active execution"},
				{"step_id": "S1", "status": "running", "message": "active execution"}],
			"status_reports": [
				{"event_type": "STATUS", "step_id": "S1", "status": "RUNNING"},
				{"event_type": "STATUS", "step_id": "S1", "status": "RUNNING"},
				{"event_type": "STATUS", "step_id": "S2", "status": "PENDING"}],
			"failure_noise": [
				{"event_type": "SYSTEM", "step_id": "S1", "reason_code": "OLD_FAILURE", "resolved": true, "message": "resolved historical failure"},
				{"event_type": "SYSTEM", "step_id": "S1", "reason_code": "ACTIVE_FAILURE", "resolved": false, "message": "still actionable"},
				{"event_type": "SYSTEM", "step_id": "S1", "reason_code": "ACTIVE_FAILURE", "resolved": false, "message": "still actionable"}],
			"api_error_dumps": ["Traceback: noise dump", {"message": "   "},
				{"code": "E_TIMEOUT", "message": "gateway timeout"}, {"code": "E_TIMEOUT", "message": "gateway timeout"}]}`,
		want: `{"relay_context": ` + pythonRelayKept + `,
			"execution_logs": [{"step_id": "S1", "status": "running", "message": "active execution"}],
			"status_reports": [{"event_type": "STATUS", "step_id": "S1", "status": "RUNNING"}, {"event_type": "STATUS", "step_id": "S2", "status": "PENDING"}],
			"failure_noise": [{"event_type": "SYSTEM", "step_id": "S1", "reason_code": "ACTIVE_FAILURE", "resolved": false, "message": "still actionable"}],
			"api_error_dumps": [{"code": "E_TIMEOUT", "message": "gateway timeout"}]}`,
	}, {
		// test_pre_compact_hook_runs_compaction_before_writing_package
		name: "python evidence paths",
		in: `{"relay_context": ` + pythonRelay + `, "evidence_paths": ["reports/S1/verification.log", "api_error_dump/raw.log",
			"reports/S1/verification.log", "", "reports/S1/report.md"]}`,
		want: `{"relay_context": ` + pythonRelayKept + `, "evidence_paths": ["reports/S1/verification.log", "reports/S1/report.md"]}`,
	}, {
		// Observed with the Python CLI: an empty context and a pipeline
		// ledger give {"relay_context": {"goal": <ledger goal>}}.
		name:  "empty context takes the ledger",
		known: Facts{Goal: "  Interrupted goal "},
		in:    `{}`,
		want:  `{"relay_context": {"goal": "Interrupted goal"}}`,
	}, {
		name: "keep set fallback trims and drops blanks",
		in: `{"relay_context": {"goal": " g ", "constraints": [" a ", 3, "", "b"], "latest_instruction": "  ",
			"current_blockers": "not a list", "controller_route_summary": {"task_id": " T ", "run_id": 7, "lane_hint": "x"}, "user_profile": {}}}`,
		want: `{"relay_context": {"user_profile": {}, "goal": "g", "constraints": ["a", "b"], "controller_route_summary": {"task_id": "T", "lane_hint": "x"}}}`,
	}, {
		// Seed 002's minimal shape: user_profile first, updated_at last,
		// both kept; a profile that is not an object and a blank time go.
		name: "user_profile and updated_at are kept in the seed's order",
		in:   `{"relay_context": {"updated_at": " 2026-11-26T09:00:00+00:00 ", "goal": "g", "user_profile": {"name": "Ada"}}}`,
		want: `{"relay_context": {"user_profile": {"name": "Ada"}, "goal": "g", "updated_at": "2026-11-26T09:00:00+00:00"}}`,
	}, {
		name: "user_profile that is not an object and a blank updated_at go",
		in:   `{"relay_context": {"user_profile": "Ada", "goal": "g", "updated_at": " "}}`,
		want: `{"relay_context": {"goal": "g"}}`,
	}, {
		name:  "route fields filled one by one",
		known: Facts{LatestInstruction: "ledger says", Route: ledger.Route{TaskID: "T-L", RunID: "R-L", ActiveLane: "controller", ActiveStep: "S2", NextAction: "resume"}},
		in:    `{"relay_context": {"controller_route_summary": {"task_id": "T-1", "active_step": ""}}}`,
		want:  `{"relay_context": {"latest_instruction": "ledger says", "controller_route_summary": {"task_id": "T-1", "run_id": "R-L", "active_lane": "controller", "active_step": "S2", "next_action": "resume"}}}`,
	}, {
		name: "nothing known removes relay_context",
		in:   `{"relay_context": {"transient_note": "x"}, "other": 1}`,
		want: `{"other": 1}`,
	}, {
		name: "relay_context that is not an object",
		in:   `{"relay_context": "goal: x"}`,
		want: `{}`,
	}, {
		// Python bug (daokit-compat §10.13): kept on the first pass,
		// dropped on the second.
		name: "dump text naming an error code keeps only the code",
		in:   `{"api_error_dumps": ["Traceback (most recent call last): E_BAD_THING happened", "see E_RATE_LIMIT now", "xE_NOT_A_CODE in a traceback"]}`,
		want: `{"api_error_dumps": [{"code": "E_BAD_THING"}, {"message": "see E_RATE_LIMIT now"}]}`,
	}, {
		name: "dump objects",
		in: `{"api_error_dumps": [
			{"status": 502, "message": "<html><body>Bad Gateway</body></html>"},
			{"message": "Traceback: boom E_WORKER_DIED"},
			{"message": "Traceback: boom"},
			{"message": "{\"error\": {\"type\": \"overloaded\"}}"},
			{"message": "[retry 2/5] upstream slow"},
			{"hint": "retry later"},
			{"detail": "no message, no structure"},
			"<!DOCTYPE html><html></html>",
			42]}`,
		want: `{"api_error_dumps": [{"status": 502}, {"code": "E_WORKER_DIED"}, {"message": "[retry 2/5] upstream slow"}, {"hint": "retry later"}]}`,
	}, {
		name: "finished, stale and resolved",
		in: `{"execution_logs": [{"status": " Success "}, {"status": "DONE"}, {"status": "accepted"}, {"status": "resolved"},
				{"status": "running", "stale": true}, {"status": "running", "stale": "true"}, "not an object", {"status": "failed"}],
			"failure_noise": [{"resolved": true}, {"status": "Resolved"}, {"stale": true}, {"reason_code": "E_X", "resolved": false}],
			"status_reports": [{"status": "RUNNING", "stale": true}, {}]}`,
		want: `{"execution_logs": [{"status": "running", "stale": "true"}, {"status": "failed"}],
			"failure_noise": [{"reason_code": "E_X", "resolved": false}],
			"status_reports": [{}]}`,
	}, {
		name: "entries of another task or run are stale",
		in: `{"relay_context": {"controller_route_summary": {"task_id": "T-2", "run_id": "R-2"}},
			"execution_logs": [{"task_id": "T-1", "status": "running"}, {"run_id": "R-1", "status": "running"},
				{"task_id": "T-2", "run_id": "R-2", "status": "running"}, {"status": "running", "run_id": 1}]}`,
		want: `{"relay_context": {"controller_route_summary": {"task_id": "T-2", "run_id": "R-2"}},
			"execution_logs": [{"task_id": "T-2", "run_id": "R-2", "status": "running"}, {"status": "running", "run_id": 1}]}`,
	}, {
		name: "dedup by event_type, dedup_key and step_id",
		in: `{"failure_noise": [
			{"event_type": "STEP_FAILED", "dedup_key": "k1", "step_id": "S1", "message": "first"},
			{"event_type": "STEP_FAILED", "dedup_key": "k1", "step_id": "S1", "message": "resent, differs"},
			{"event_type": "STEP_FAILED", "dedup_key": "k1", "step_id": "S2", "message": "other step"},
			{"event_type": "SYSTEM", "dedup_key": "k1", "step_id": "S1", "message": "other type"},
			{"event_type": "STEP_FAILED", "dedup_key": " k1 ", "step_id": "S1", "message": "padded key"}]}`,
		want: `{"failure_noise": [
			{"event_type": "STEP_FAILED", "dedup_key": "k1", "step_id": "S1", "message": "first"},
			{"event_type": "STEP_FAILED", "dedup_key": "k1", "step_id": "S2", "message": "other step"},
			{"event_type": "SYSTEM", "dedup_key": "k1", "step_id": "S1", "message": "other type"}]}`,
	}, {
		name: "dedup by content ignores order, padding and escapes",
		in: `{"execution_logs": [{"a": "x", "b": {"c": 1}}, {"b": {"c": 1}, "a": " x "}, {"a": "\u0078", "b": {"c": 1}},
			{"a": "x", "b": {"c": 1.0}}, {"a": "x", "a": "y"}, {"a": "y"}]}`,
		want: `{"execution_logs": [{"a": "x", "b": {"c": 1}}, {"a": "x", "b": {"c": 1.0}}, {"a": "y"}]}`,
	}, {
		name: "a later report of the same status supersedes",
		in: `{"status_reports": [
			{"step_id": "S1", "status": "RUNNING", "at": 1},
			{"step_id": "S1", "status": "FAILED", "at": 2},
			{"step_id": "S1", "status": "RUNNING", "at": 3},
			{"step_id": "S1", "lane": "w2", "status": "RUNNING", "at": 4},
			{"step_id": "S2", "status": "RUNNING", "at": 5}]}`,
		want: `{"status_reports": [
			{"step_id": "S1", "status": "FAILED", "at": 2},
			{"step_id": "S1", "status": "RUNNING", "at": 3},
			{"step_id": "S1", "lane": "w2", "status": "RUNNING", "at": 4},
			{"step_id": "S2", "status": "RUNNING", "at": 5}]}`,
	}, {
		name: "evidence paths",
		in:   `{"evidence_paths": [" reports/a.md ", "./reports/a.md", "reports//a.md", "logs/STDERR.txt", "out/stack_trace.txt", 7, "reports/b.md"]}`,
		want: `{"evidence_paths": ["reports/a.md", "reports/b.md"]}`,
	}, {
		name: "lists that are not lists, null or empty",
		in:   `{"execution_logs": null, "status_reports": "x", "failure_noise": [], "api_error_dumps": [" "], "evidence_paths": {}}`,
		want: `{"execution_logs": null}`,
	}, {
		name: "other members stay in place, duplicates collapse",
		in:   `{"z": [1, {"b": 1, "b": 2}], "relay_context": {"goal": "g"}, "a": "  padded stays  ", "z": "last wins"}`,
		want: `{"z": "last wins", "relay_context": {"goal": "g"}, "a": "  padded stays  "}`,
	}, {
		name: "normalization trims nested objects, not lists",
		in:   `{"execution_logs": [{"status": "running", "detail": {"why": " x ", "empty": " ", "deep": {"k": ""}}, "list": [" keep ", ""]}]}`,
		want: `{"execution_logs": [{"status": "running", "detail": {"why": "x", "deep": {}}, "list": [" keep ", ""]}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, _ := Compact(mustParse(t, tt.in), tt.known)
			if got, want := string(out.Encode()), indentJSON(t, tt.want); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			again, rep := Compact(out, tt.known)
			if rep.Changed() || !bytes.Equal(again.Encode(), out.Encode()) {
				t.Errorf("second pass changed the context: %+v\n%s", rep, again.Encode())
			}
		})
	}
}

func TestCompactReport(t *testing.T) {
	t.Parallel()
	in := `{"relay_context": {"goal": "", "transient_note": 1, "controller_route_summary": {"run_id": "R-1"}},
		"execution_logs": [{"status": "done"}, {"status": "running"}, {"status": "running"}, 5, {"run_id": "R-0"}],
		"status_reports": [{"status": "A"}, {"status": "A"}, {"status": "A", "n": 2}],
		"evidence_paths": ["stdout.log", "a"]}`
	c := mustParse(t, in)
	out, rep := Compact(c, Facts{Goal: "from ledger", CurrentBlockers: []string{}})
	want := []ListReport{
		{List: ExecutionLogs, Before: 5, Kept: 1, Dropped: 3, Merged: 1,
			Reasons: []ReasonCount{{Finished, 1}, {Stale, 1}, {Invalid, 1}, {Duplicate, 1}}},
		{List: StatusReports, Before: 3, Kept: 1, Dropped: 0, Merged: 2, Reasons: []ReasonCount{{Duplicate, 1}, {Repeated, 1}}},
		{List: FailureNoise, Reasons: []ReasonCount{}},
		{List: APIErrorDumps, Reasons: []ReasonCount{}},
		{List: EvidencePaths, Before: 2, Kept: 1, Dropped: 1, Reasons: []ReasonCount{{Noise, 1}}},
	}
	for i, w := range want {
		if got := rep.Lists[i]; !equalRow(got, w) {
			t.Errorf("row %d: got %+v, want %+v", i, got, w)
		}
	}
	if got, want := rep.Relay.Filled, []string{"goal", "current_blockers"}; !slices.Equal(got, want) {
		t.Errorf("filled: got %q, want %q", got, want)
	}
	if got, want := rep.Relay.Dropped, []string{"transient_note"}; !slices.Equal(got, want) {
		t.Errorf("dropped: got %q, want %q", got, want)
	}
	if rep.EntriesBefore != 10 || rep.EntriesAfter != 3 || rep.EntriesAfter != out.Len() {
		t.Errorf("entries: got %d → %d (context has %d), want 10 → 3", rep.EntriesBefore, rep.EntriesAfter, out.Len())
	}
	if rep.BytesBefore != c.Size() || rep.BytesAfter != out.Size() || rep.BytesAfter >= rep.BytesBefore {
		t.Errorf("bytes: got %d → %d, want %d → %d", rep.BytesBefore, rep.BytesAfter, c.Size(), out.Size())
	}
	if total := rep.Total(); total.Before != 10 || total.Kept != 3 || total.Dropped != 4 || total.Merged != 3 {
		t.Errorf("total: got %+v", total)
	}
	if !rep.Changed() {
		t.Error("Changed() = false for a compaction that dropped entries")
	}
}

func equalRow(a, b ListReport) bool {
	return a.List == b.List && a.Before == b.Before && a.Kept == b.Kept && a.Dropped == b.Dropped &&
		a.Merged == b.Merged && slices.Equal(a.Reasons, b.Reasons)
}

func TestCompactLeavesInputAlone(t *testing.T) {
	t.Parallel()
	c := mustParse(t, `{"relay_context": {"goal": " g "}, "execution_logs": [{"status": " running "}, {"status": "done"}]}`)
	before := string(c.Encode())
	out, _ := Compact(c, Facts{LatestInstruction: "x"})
	if got := string(c.Encode()); got != before {
		t.Errorf("Compact changed its input:\n%s\nwas\n%s", got, before)
	}
	if err := out.Append(ExecutionLogs, json.RawMessage(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	if got := string(c.Encode()); got != before {
		t.Errorf("appending to the result changed the input:\n%s", got)
	}
}

func TestCompactNilContext(t *testing.T) {
	t.Parallel()
	out, rep := Compact(nil, Facts{Goal: "g"})
	if got, want := string(out.Encode()), indentJSON(t, `{"relay_context":{"goal":"g"}}`); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if rep.EntriesBefore != 0 || rep.BytesBefore != 2 {
		t.Errorf("report of nil context: %+v", rep)
	}
}
