package fakemodel

import "testing"

// FuzzParse feeds both request parsers whatever a client could send:
// they must never panic, and an answer count never exceeds the history.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"model":"m","stream":true,"tools":[{}],"messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]},{"role":"assistant","content":"a"}]}`))
	f.Add([]byte(`{"input":[{"type":"function_call"},{"type":"function_call_output","output":"o"},{"role":"user","content":"s"}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":null}],"input":"text"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if c, err := parseAnthropic(body); err == nil && c.Answers < 0 {
			t.Fatal("negative answers")
		}
		if c, err := parseResponses(body); err == nil && c.Answers < 0 {
			t.Fatal("negative answers")
		}
	})
}
