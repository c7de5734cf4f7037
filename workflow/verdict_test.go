package workflow

import (
	"slices"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	cases := []struct {
		name  string
		texts []string
		want  Verdict
		ok    bool
	}{
		{"plain approve", []string{"all good\nVERDICT: approve — tests cover the change"},
			Verdict{Decision: Approve, Reason: "tests cover the change", Findings: []string{}}, true},
		{"plain with findings", []string{"Findings:\n- handler.go: empty body\n- lru.go: off by one\n\nVERDICT: request_changes: two bugs"},
			Verdict{Decision: RequestChanges, Reason: "two bugs", Findings: []string{"handler.go: empty body", "lru.go: off by one"}}, true},
		{"json", []string{`VERDICT: {"verdict":"request_changes","reason":"r","findings":["a","b"]}`},
			Verdict{Decision: RequestChanges, Reason: "r", Findings: []string{"a", "b"}}, true},
		{"markdown", []string{"**VERDICT: approve**"}, Verdict{Decision: Approve, Findings: []string{}}, true},
		{"escalate", []string{"VERDICT: escalate - needs a person"},
			Verdict{Decision: RequestChanges, Escalate: true, Reason: "needs a person", Findings: []string{}}, true},
		{"result message wins", []string{"VERDICT: request_changes", "VERDICT: approve"},
			Verdict{Decision: Approve, Findings: []string{}}, true},
		{"findings in earlier lines", []string{"- a finding", "VERDICT: request_changes"},
			Verdict{Decision: RequestChanges, Findings: []string{"a finding"}}, true},
		{"none", []string{"I approve of this", "verdict approve"}, Verdict{}, false},
		{"unknown word", []string{"VERDICT: maybe"}, Verdict{}, false},
		{"bad json", []string{`VERDICT: {"verdict":`}, Verdict{}, false},
	}
	for _, c := range cases {
		got, ok := ParseVerdict(c.texts...)
		if ok != c.ok || got.Decision != c.want.Decision || got.Reason != c.want.Reason || got.Escalate != c.want.Escalate ||
			(c.ok && !slices.Equal(got.Findings, c.want.Findings)) {
			t.Errorf("%s: ParseVerdict = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestVerdictLineRoundTrip(t *testing.T) {
	v := Verdict{Decision: RequestChanges, Reason: "why", Findings: []string{"x: y"}}
	got, ok := ParseVerdict("some output\n" + v.Line())
	if !ok || got.Reason != "why" || !slices.Equal(got.Findings, v.Findings) {
		t.Fatalf("round trip: %+v %v", got, ok)
	}
}

// FuzzParseVerdict: any text parses without panicking, and what parses
// is a known decision within the bounds.
func FuzzParseVerdict(f *testing.F) {
	f.Add("VERDICT: approve — fine", "")
	f.Add("- a\n- b\nVERDICT: request_changes", "")
	f.Add(`VERDICT: {"verdict":"approve","findings":["x"]}`, "tail")
	f.Fuzz(func(t *testing.T, a, b string) {
		v, ok := ParseVerdict(a, b)
		if !ok {
			return
		}
		if v.Decision != Approve && v.Decision != RequestChanges {
			t.Fatalf("decision %q", v.Decision)
		}
		if len(v.Findings) > maxFindings || len([]rune(v.Reason)) > maxReasonRunes {
			t.Fatalf("unbounded: %+v", v)
		}
		if w, ok := ParseVerdict(v.Line()); !ok || w.Decision != v.Decision || w.Escalate != v.Escalate {
			t.Fatalf("Line does not parse back: %q → %+v", v.Line(), w)
		}
	})
}
