package relay

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeEnvelope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line   string
		code   Code // "" for a good envelope
		detail string
		id     string
	}{
		{`{"v":1,"id":"a","type":"ping","action":"observe"}`, "", "", "a"},
		{`{"v":1,"id":"a","type":"ping","extra":{"x":[1]}}`, "", "", "a"},
		{`{"v":2,"id":"a","type":"ping"}`, CodeBadVersion, "2", "a"},
		{`{"id":"a","type":"ping"}`, CodeBadVersion, "0", "a"},
		{`{"v":"1","id":"a"}`, CodeBadVersion, `"1"`, "a"},
		{`{"v":3,"id":"a","type":5}`, CodeBadVersion, "3", "a"},
		{`{"v":1,"id":"a","type":5}`, CodeMalformed, "", "a"},
		{`{"v":1,"id":5}`, CodeMalformed, "", ""},
		{`nope`, CodeMalformed, "", ""},
		{`null`, CodeBadVersion, "0", ""},
		{``, CodeMalformed, "", ""},
	}
	for _, tt := range tests {
		_, id, err := decodeEnvelope([]byte(tt.line))
		switch {
		case tt.code == "" && err != nil:
			t.Errorf("%s: got %v, want no error", tt.line, err)
		case tt.code != "" && (err == nil || err.Code != tt.code || err.Detail != tt.detail):
			t.Errorf("%s: got %v, want %s %q", tt.line, err, tt.code, tt.detail)
		case id != tt.id:
			t.Errorf("%s: got id %q, want %q", tt.line, id, tt.id)
		}
	}
}

func TestEnvelopeRoundTrip(t *testing.T) {
	t.Parallel()
	in := Envelope{V: Version, ID: NewID(), Type: TypeControl, Action: ActionForward}
	if err := in.SetBody(Control{Kind: ControlRetry, TaskID: "T", RunID: "R", StepID: "S1"}); err != nil {
		t.Fatal(err)
	}
	line, err := encodeLine(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(line), "}\n") || strings.Count(string(line), "\n") != 1 {
		t.Fatalf("line %q is not one JSON line", line)
	}
	out, _, perr := decodeEnvelope(line[:len(line)-1])
	if perr != nil {
		t.Fatal(perr)
	}
	var c Control
	if err := out.DecodeBody(&c); err != nil {
		t.Fatal(err)
	}
	if out.ID != in.ID || out.Type != in.Type || c != (Control{Kind: ControlRetry, TaskID: "T", RunID: "R", StepID: "S1"}) {
		t.Errorf("got %+v %+v, want %+v", out, c, in)
	}
	var none Instruction
	if err := (Envelope{Body: json.RawMessage("null")}).DecodeBody(&none); err != nil || none.Text != "" {
		t.Errorf("null body: %v %+v, want zero value", err, none)
	}
}

func TestAckJSONIsFlat(t *testing.T) {
	t.Parallel()
	b, _ := json.Marshal(Ack{Route: Route{TaskID: "T", NextAction: "dispatch"}, Duplicate: true})
	// The route is the ledger's (ledger.Route): its five fields are always
	// there, as in the handoff package's controller_route_summary.
	if got, want := string(b), `{"task_id":"T","run_id":"","active_lane":"","active_step":"","next_action":"dispatch","duplicate":true}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if len(id) != 32 || !validID(id) || seen[id] {
			t.Fatalf("NewID() = %q: want 32 fresh hex characters", id)
		}
		seen[id] = true
	}
}

func TestErrorIsAndCodeOf(t *testing.T) {
	t.Parallel()
	err := error(&Error{Code: CodeTooLarge, Detail: "4096"})
	if !errors.Is(err, &Error{Code: CodeTooLarge}) || errors.Is(err, &Error{Code: CodeMalformed}) {
		t.Errorf("errors.Is does not match by code")
	}
	tests := []struct {
		err  error
		want Code
	}{
		{nil, ""},
		{err, CodeTooLarge},
		{Guard("execute"), CodeForbiddenAction},
		{Guard(""), CodeBadRequest},
		{ErrClosed, CodeClosed},
		{errors.New("boom"), CodeInternal},
	}
	for _, tt := range tests {
		if got := CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
