package compact

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		kind   SyntaxKind
		offset int
	}{
		{``, SyntaxEnd, 0},
		{`   `, SyntaxEnd, 3},
		{`{"a":`, SyntaxEnd, 5},
		{`{"a" 1}`, SyntaxChar, 5},
		{`{"a":1,}`, SyntaxChar, 7},
		{`{"a":01}`, SyntaxChar, 6},
		{`{"a":"\x"}`, SyntaxChar, 6},
		{"{\"a\":\"\n\"}", SyntaxChar, 6},
		{`{"a":tru}`, SyntaxChar, 8},
		{`{"a":1} {}`, SyntaxTrailing, 8},
		{"\ufeff{}", SyntaxChar, 0},
		{strings.Repeat(`{"a":`, MaxDepth+1), SyntaxDepth, 5 * MaxDepth},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Kind != tt.kind || se.Offset != tt.offset {
			t.Errorf("Parse(%.40q): got %v, want kind %d at byte %d", tt.in, err, tt.kind, tt.offset)
		}
	}
	for _, in := range []string{`[]`, `"x"`, `1`, `null`} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrNotObject) {
			t.Errorf("Parse(%s): got %v, want ErrNotObject", in, err)
		}
	}
}

// TestEncodeLikePython compares with json.dumps(context, indent=2) output
// of CPython 3.11, which ensure_ascii makes pure ASCII.
func TestEncodeLikePython(t *testing.T) {
	t.Parallel()
	in := "{\"goal\": \"修复登录 🚀\", \"empty\": {}, \"list\": [], \"n\": [1, 2.50, -0, 1e5, true, null],\n" +
		"\"esc\": \"tab\\there \\\"q\\\" \\u0041 \\/ <&> \\u007f\", \"o\": {\"k\": {\"deep\": [{}]}}}"
	want := `{
  "goal": "\u4fee\u590d\u767b\u5f55 \ud83d\ude80",
  "empty": {},
  "list": [],
  "n": [
    1,
    2.50,
    -0,
    1e5,
    true,
    null
  ],
  "esc": "tab\there \"q\" A / <&> \u007f",
  "o": {
    "k": {
      "deep": [
        {}
      ]
    }
  }
}
`
	c := mustParse(t, in)
	if got := string(c.Encode()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := string((&Context{}).Encode()); got != "{}\n" {
		t.Errorf("empty context encodes as %q", got)
	}
}

func TestSizeIsCompactJSONLength(t *testing.T) {
	t.Parallel()
	c := mustParse(t, `{ "a" : [ 1 , 2 ] , "execution_logs" : [ { "x" : 1 } , 2 ] , "evidence_paths": [] }`)
	data, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":[1,2],"execution_logs":[{"x":1},2],"evidence_paths":[]}`; string(data) != want {
		t.Errorf("MarshalJSON: got %s, want %s", data, want)
	}
	if c.Size() != len(data) {
		t.Errorf("Size() = %d, want %d", c.Size(), len(data))
	}
	if c.Len() != 2 {
		t.Errorf("Len() = %d, want 2", c.Len())
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	c := mustParse(t, `{"status_reports": null, "x": 1}`)
	for _, step := range []struct {
		l     List
		entry string
	}{{StatusReports, `{"status": "RUNNING"}`}, {ExecutionLogs, ` { "a" : 1 } `}, {StatusReports, `"second"`}} {
		if err := c.Append(step.l, json.RawMessage(step.entry)); err != nil {
			t.Fatalf("Append(%s, %s): %v", step.l, step.entry, err)
		}
	}
	data, _ := c.MarshalJSON()
	if want := `{"status_reports":[{"status":"RUNNING"},"second"],"x":1,"execution_logs":[{"a":1}]}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
	if got := c.Entries(StatusReports); len(got) != 2 || string(got[1]) != `"second"` {
		t.Errorf("Entries: got %q", got)
	}
	var se *SyntaxError
	if err := c.Append(ExecutionLogs, json.RawMessage(`{"a":`)); !errors.As(err, &se) {
		t.Errorf("Append of invalid JSON: got %v, want a *SyntaxError", err)
	}
	if err := c.Append(List(9), json.RawMessage(`{}`)); err == nil {
		t.Error("Append to an unknown list succeeded")
	}
	// An Append after compaction reaches the next compaction.
	out, _ := Compact(c, Facts{})
	if err := out.Append(ExecutionLogs, json.RawMessage(`{"status":"done"}`)); err != nil {
		t.Fatal(err)
	}
	again, rep := Compact(out, Facts{})
	if rep.Lists[ExecutionLogs].Dropped != 1 || len(again.Entries(ExecutionLogs)) != 1 {
		t.Errorf("appended entry not compacted: %+v", rep.Lists[ExecutionLogs])
	}
}

func TestCloneSharesNothingMutable(t *testing.T) {
	t.Parallel()
	c := mustParse(t, `{"execution_logs": [{"a": 1}]}`)
	d := c.Clone()
	if err := d.Append(ExecutionLogs, json.RawMessage(`{"b": 2}`)); err != nil {
		t.Fatal(err)
	}
	d.SetFacts(Facts{Goal: "g"})
	if c.Len() != 1 || c.Facts().Goal != "" {
		t.Errorf("changing a clone changed the original: %s", c.Encode())
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	var holder struct {
		Context *Context `json:"context"`
	}
	if err := json.Unmarshal([]byte(`{"context": {"execution_logs": [{"status": "running"}], "k": "v"}}`), &holder); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"context":{"execution_logs":[{"status":"running"}],"k":"v"}}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
	var c Context
	if err := json.Unmarshal([]byte(`[1]`), &c); !errors.Is(err, ErrNotObject) {
		t.Errorf("UnmarshalJSON of an array: got %v, want ErrNotObject", err)
	}
}

func TestFactsAndSetFacts(t *testing.T) {
	t.Parallel()
	c := mustParse(t, `{"relay_context": {"goal": " g ", "constraints": ["a", 1, " "], "note": "stays",
		"controller_route_summary": {"task_id": "T", "extra": true}}}`)
	got := c.Facts()
	want := Facts{Goal: "g", Constraints: []string{"a"}, Route: ledger.Route{TaskID: "T"}}
	if !equalFacts(got, want) {
		t.Errorf("Facts: got %+v, want %+v", got, want)
	}
	c.SetFacts(Facts{LatestInstruction: " do it ", CurrentBlockers: []string{}, Route: ledger.Route{RunID: "R"}})
	data, _ := c.MarshalJSON()
	wantJSON := `{"relay_context":{"goal":" g ","constraints":["a",1," "],"note":"stays","controller_route_summary":{"task_id":"T","extra":true,"run_id":"R"},"latest_instruction":"do it","current_blockers":[]}}`
	if string(data) != wantJSON {
		t.Errorf("SetFacts: got %s\nwant %s", data, wantJSON)
	}
	var empty Context
	empty.SetFacts(Facts{Goal: "new"})
	if got := empty.Facts(); got.Goal != "new" {
		t.Errorf("SetFacts on an empty context: got %+v", got)
	}
}

func equalFacts(a, b Facts) bool {
	return a.Goal == b.Goal && a.LatestInstruction == b.LatestInstruction && a.Route == b.Route &&
		slices.Equal(a.Constraints, b.Constraints) && (a.Constraints == nil) == (b.Constraints == nil) &&
		slices.Equal(a.CurrentBlockers, b.CurrentBlockers) && (a.CurrentBlockers == nil) == (b.CurrentBlockers == nil)
}

func TestPipelineFacts(t *testing.T) {
	t.Parallel()
	p, err := ledger.ParsePipelineState([]byte(`{"schema_version":"1.0.0","task_id":"DKT-300","run_id":"RUN-A",
		"goal":" Interrupted goal ","status":"BLOCKED","current_step":"S1","steps":[],
		"role_lifecycle":{"orchestrator":"idle","controller_lane":"controller","lane:controller":"active_step:S2",
			"step:S1":"owned_by_lane:controller","step:S2":"failed_non_adopted_lease","handoff_next_action":"resume"},
		"succession":{"enabled":true,"last_takeover_at":null},"updated_at":"2026-11-22T01:45:05+00:00"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := PipelineFacts(p)
	want := Facts{Goal: "Interrupted goal", CurrentBlockers: []string{"status=BLOCKED", "step:S2=failed_non_adopted_lease"},
		Route: ledger.Route{TaskID: "DKT-300", RunID: "RUN-A", ActiveLane: "controller", ActiveStep: "S2", NextAction: "resume"}}
	if !equalFacts(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	done := ledger.NewPipelineState(time.Date(2026, 2, 12, 7, 2, 8, 0, time.UTC))
	done.Status, done.CurrentStep, done.TaskID = ledger.StatusDone, "S3", "T"
	got = PipelineFacts(done)
	want = Facts{CurrentBlockers: []string{}, Route: ledger.Route{TaskID: "T", ActiveStep: "S3", NextAction: ledger.NextActionComplete}}
	if !equalFacts(got, want) {
		t.Errorf("done pipeline: got %+v\nwant %+v", got, want)
	}
}
