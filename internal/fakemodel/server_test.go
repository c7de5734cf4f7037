package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// event is one server-sent event read back by the tests.
type event struct {
	name string
	data map[string]any
}

func post(t *testing.T, url, body string) (*http.Response, []event) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, []event{{name: "body", data: map[string]any{"raw": string(raw)}}}
	}
	var out []event
	sc := bufio.NewScanner(bytes.NewReader(raw))
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data of %s is not JSON: %v", name, err)
			}
			if d["type"] != name {
				t.Fatalf("event %s carries type %v", name, d["type"])
			}
			out = append(out, event{name, d})
		}
	}
	return resp, out
}

func names(evs []event) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.name)
	}
	return strings.Join(n, " ")
}

const claudeTools = `"tools":[{"name":"Write"},{"name":"Bash"}]`

func claudeBody(messages string) string {
	return `{"model":"claude-test","stream":true,"max_tokens":100,` + claudeTools + `,"messages":[` + messages + `]}`
}

func TestAnthropicStreamsToolUseThenText(t *testing.T) {
	s := Start(t, Rule{Name: "coder", Match: "MARK-1", Turns: []Turn{
		{Text: "Writing.", Tools: []ToolCall{Write("/w/a.txt", "héllo wörld, a long enough content to be split in pieces\n")},
			Usage: Usage{Input: 7, Output: 3, CacheRead: 500, CacheCreation: 11}},
		Say("Finished."),
	}})
	resp, evs := post(t, s.URL+"/v1/messages?beta=true", claudeBody(`{"role":"user","content":[{"type":"text","text":"do MARK-1"}]}`))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := names(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	start := evs[0].data["message"].(map[string]any)
	if start["model"] != "claude-test" {
		t.Errorf("model %v, want the request's", start["model"])
	}
	var partial strings.Builder
	for _, e := range evs {
		if d, ok := e.data["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
			partial.WriteString(d["partial_json"].(string))
		}
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(partial.String()), &input); err != nil {
		t.Fatalf("tool input pieces do not join into JSON: %v", err)
	}
	if input["file_path"] != "/w/a.txt" || !strings.HasPrefix(input["content"].(string), "héllo") {
		t.Errorf("tool input %v", input)
	}
	md := evs[len(evs)-2].data
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", md["delta"])
	}
	u := md["usage"].(map[string]any)
	if u["input_tokens"] != 7.0 || u["cache_read_input_tokens"] != 500.0 || u["cache_creation_input_tokens"] != 11.0 || u["output_tokens"] != 3.0 {
		t.Errorf("usage %v", u)
	}

	// The next request carries the first answer and its tool result: turn 1.
	_, evs = post(t, s.URL+"/v1/messages", claudeBody(`{"role":"user","content":"do MARK-1"},
		{"role":"assistant","content":[{"type":"text","text":"Writing."}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"written ok"}]}`))
	if got := evs[3].data["delta"].(map[string]any)["text"]; got != "Finished." {
		t.Errorf("turn 1 text %v", got)
	}
	if evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"] != "end_turn" {
		t.Errorf("turn 1 does not end the turn")
	}
	reqs := s.Scripted("coder")
	if len(reqs) != 2 || reqs[0].Turn != 0 || reqs[1].Turn != 1 || reqs[1].Answers != 1 {
		t.Fatalf("recorded %+v", reqs)
	}
	if len(reqs[1].ToolResults) != 1 || reqs[1].ToolResults[0] != "written ok" {
		t.Errorf("tool results %q", reqs[1].ToolResults)
	}
}

func TestAnthropicSideRequestsDoNotUseTurns(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-2", Turns: []Turn{Call("", Bash("make"))}})
	_, evs := post(t, s.URL+"/v1/messages", `{"model":"small","stream":true,"messages":[{"role":"user","content":"title for MARK-2"}]}`)
	for _, e := range evs {
		if cb, ok := e.data["content_block"].(map[string]any); ok && cb["type"] != "text" {
			t.Fatalf("side request got a %v block", cb["type"])
		}
	}
	resp, _ := post(t, s.URL+"/v1/messages/count_tokens", `{"model":"m","messages":[]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("count_tokens status %d", resp.StatusCode)
	}
	for _, r := range s.Requests() {
		if !r.Side {
			t.Errorf("%s recorded as scripted", r.Path)
		}
	}
	if n := len(s.Scripted("MARK-2")); n != 0 {
		t.Errorf("%d scripted requests, want 0", n)
	}
}

func TestErrorsAnswerAsTheProviderDoesAndStopAfterTimes(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-3", Turns: []Turn{
		{Error: &APIError{Status: 429, RetryAfter: 2, Times: 1}, Text: "after the limit"},
	}})
	body := claudeBody(`{"role":"user","content":"MARK-3"}`)
	resp, evs := post(t, s.URL+"/v1/messages", body)
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "2" {
		t.Fatalf("status %d retry-after %q", resp.StatusCode, resp.Header.Get("retry-after"))
	}
	var e struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal([]byte(evs[0].data["raw"].(string)), &e); err != nil || e.Type != "error" || e.Error.Type != "rate_limit_error" {
		t.Fatalf("error body %v %+v", err, e)
	}
	resp, _ = post(t, s.URL+"/v1/messages", body)
	if resp.StatusCode != 200 {
		t.Fatalf("second try status %d, want 200 after Times", resp.StatusCode)
	}

	s.SetRules(Rule{Match: "MARK-3", Turns: []Turn{Fail(401)}})
	for range 2 {
		if resp, _ := post(t, s.URL+"/v1/messages", body); resp.StatusCode != 401 {
			t.Fatalf("status %d, want 401 every time", resp.StatusCode)
		}
	}
	resp, evs = post(t, s.URL+"/v1/responses", `{"model":"gpt","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"MARK-3"}]}]}`)
	if resp.StatusCode != 401 || !strings.Contains(evs[0].data["raw"].(string), `"code":"invalid_api_key"`) {
		t.Fatalf("responses 401: %d %v", resp.StatusCode, evs[0].data["raw"])
	}
}

func TestResponsesStreamFunctionCallsAndUsage(t *testing.T) {
	s := Start(t, Rule{Name: "codex", Match: "MARK-4", Turns: []Turn{
		{Text: "Patching.", Tools: []ToolCall{UpdatePatch("a.txt", "old", "new")}, Usage: Usage{Input: 90, CacheRead: 10, Output: 5}},
		Say("Done."),
	}})
	body := `{"model":"gpt-x","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"please MARK-4"}]}]}`
	_, evs := post(t, s.URL+"/v1/responses", body)
	want := "response.created response.output_item.added response.output_text.delta response.output_item.done response.output_item.added response.output_item.done response.completed"
	if got := names(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	call := evs[5].data["item"].(map[string]any)
	var args map[string]string
	if err := json.Unmarshal([]byte(call["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	if call["type"] != "function_call" || call["name"] != "exec_command" || !strings.Contains(args["cmd"], "*** Update File: a.txt") {
		t.Errorf("call %v", call)
	}
	u := evs[6].data["response"].(map[string]any)["usage"].(map[string]any)
	if u["input_tokens"] != 100.0 || u["input_tokens_details"].(map[string]any)["cached_tokens"] != 10.0 || u["total_tokens"] != 105.0 {
		t.Errorf("usage %v", u)
	}
	// After the call and its output the history holds one answer: turn 1.
	body2 := strings.TrimSuffix(body, "]}") + `,
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Patching."}]},
		{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c1"},
		{"type":"function_call_output","call_id":"c1","output":"Success. Updated a.txt"}]}`
	_, evs = post(t, s.URL+"/v1/responses", body2)
	if evs[2].data["delta"] != "Done." {
		t.Errorf("turn 1 delta %v", evs[2].data["delta"])
	}
	reqs := s.Scripted("codex")
	if len(reqs) != 2 || reqs[1].Turn != 1 || reqs[1].ToolResults[0] != "Success. Updated a.txt" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestUnmatchedAndPastTheScriptEndTheTurn(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-5", Turns: []Turn{Say("one")}})
	_, evs := post(t, s.URL+"/v1/messages", claudeBody(`{"role":"user","content":"MARK-5"},{"role":"assistant","content":"one"},{"role":"user","content":"again"}`))
	if evs[len(evs)-2].data["delta"].(map[string]any)["stop_reason"] != "end_turn" {
		t.Errorf("past the script does not end the turn")
	}
	resp, _ := post(t, s.URL+"/v1/messages", `not json`)
	if resp.StatusCode != 400 {
		t.Errorf("bad body status %d", resp.StatusCode)
	}
	resp, _ = post(t, s.URL+"/v1/other", `{}`)
	if resp.StatusCode != 404 {
		t.Errorf("unknown path status %d", resp.StatusCode)
	}
}

func TestApplyPatchAddsEveryLine(t *testing.T) {
	c := ApplyPatch(map[string]string{"b.txt": "x\ny\n", "a.txt": "z"})
	want := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+z\n*** Add File: b.txt\n+x\n+y\n*** End Patch\nEOF\n"
	if c.Input["cmd"] != want {
		t.Errorf("patch\n%q\nwant\n%q", c.Input["cmd"], want)
	}
}

func TestHoldKeepsTheFirstRequestUntilRelease(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-6", Turns: []Turn{{Text: "late", Hold: true}}})
	body := claudeBody(`{"role":"user","content":"MARK-6"}`)
	first := make(chan string, 1)
	go func() {
		// Not post: a test may only fail from its own goroutine.
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			first <- err.Error()
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		first <- string(raw)
	}()
	<-s.Holding()
	// A second request of the same turn is not held.
	if _, evs := post(t, s.URL+"/v1/messages", body); len(evs) == 0 || evs[0].name != "message_start" {
		t.Fatalf("second request: %v", names(evs))
	}
	select {
	case <-first:
		t.Fatal("the held request was answered before Release")
	default:
	}
	s.Release()
	if got := <-first; !strings.Contains(got, `"text":"late"`) {
		t.Fatalf("held answer %q", got)
	}
}

func TestRuleAllNeedsEveryPhrase(t *testing.T) {
	s := Start(t,
		Rule{Name: "reviewer", Match: "MARK-7", All: []string{"VERDICT:"}, Turns: []Turn{Say("VERDICT: approve — fine")}},
		Rule{Name: "coder", Match: "MARK-7", Turns: []Turn{Say("coded")}},
	)
	post(t, s.URL+"/v1/messages", claudeBody(`{"role":"user","content":"MARK-7 build it"}`))
	post(t, s.URL+"/v1/messages", claudeBody(`{"role":"user","content":"Review MARK-7; end with VERDICT: approve"}`))
	if len(s.Scripted("coder")) != 1 || len(s.Scripted("reviewer")) != 1 {
		t.Fatalf("coder %d reviewer %d", len(s.Scripted("coder")), len(s.Scripted("reviewer")))
	}
}

func TestCwdStandsForTheFolderTheCLINamed(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-8", Turns: []Turn{Call("", Write(Cwd+"/a.txt", "x"))}})
	body := `{"model":"m","stream":true,` + claudeTools + `,"system":[{"type":"text","text":"env:\n - Primary working directory: /w/tree-1\n - Is a git repository: true"}],"messages":[{"role":"user","content":"MARK-8"}]}`
	_, evs := post(t, s.URL+"/v1/messages", body)
	var partial strings.Builder
	for _, e := range evs {
		if d, ok := e.data["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
			partial.WriteString(d["partial_json"].(string))
		}
	}
	if !strings.Contains(partial.String(), `"/w/tree-1/a.txt"`) {
		t.Errorf("tool input %s", partial.String())
	}
	body = `{"model":"m","stream":true,"tools":[{}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w/tree-2</cwd>\n</environment_context>"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"MARK-8"}]}]}`
	_, evs = post(t, s.URL+"/v1/responses", body)
	if args := evs[len(evs)-2].data["item"].(map[string]any)["arguments"].(string); !strings.Contains(args, `/w/tree-2/a.txt`) {
		t.Errorf("arguments %s", args)
	}
	if got := s.Requests()[1].Cwd; got != "/w/tree-2" {
		t.Errorf("recorded cwd %q", got)
	}
}

func TestClaudesSyntheticAnswerUsesNoTurn(t *testing.T) {
	c, err := parseAnthropic([]byte(`{"tools":[{}],"messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Write","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"[Tool call interrupted]","is_error":true}]},
		{"role":"assistant","content":[{"type":"text","text":"No response requested."}]},
		{"role":"user","content":"go"}]}`))
	if err != nil || c.Answers != 1 {
		t.Fatalf("answers %d (%v), want 1: the synthetic answer is not the model's", c.Answers, err)
	}
}

func TestFreeformCallsAreCustomToolCalls(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-9", Turns: []Turn{Call("", PatchLine("a.txt", "x", "y"))}})
	_, evs := post(t, s.URL+"/v1/responses", `{"model":"gpt-5.5","stream":true,"tools":[{}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"MARK-9"}]}]}`)
	item := evs[len(evs)-2].data["item"].(map[string]any)
	if item["type"] != "custom_tool_call" || item["name"] != "apply_patch" || !strings.HasPrefix(item["input"].(string), "*** Begin Patch\n*** Update File: a.txt\n") {
		t.Fatalf("item %v", item)
	}
	if _, ok := item["arguments"]; ok {
		t.Errorf("a custom tool call has arguments: %v", item)
	}
}

func TestAnthropicAnswersWithoutStreamAsOneMessage(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-10", Turns: []Turn{{Text: "plain", Usage: Usage{Input: 5, Output: 2, CacheRead: 9}}}})
	_, evs := post(t, s.URL+"/v1/messages", `{"model":"m",`+claudeTools+`,"messages":[{"role":"user","content":"MARK-10"}]}`)
	var msg struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct{ Type, Text string }
		Usage      map[string]any
	}
	if err := json.Unmarshal([]byte(evs[0].data["raw"].(string)), &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "plain" ||
		msg.Usage["cache_read_input_tokens"] != 9.0 || msg.Usage["input_tokens"] != 5.0 {
		t.Errorf("message %+v", msg)
	}
}

func TestStreamErrorsEndAStreamThatBegan(t *testing.T) {
	s := Start(t, Rule{Match: "MARK-11", Turns: []Turn{{StreamError: &APIError{Status: 529}}}})
	resp, evs := post(t, s.URL+"/v1/messages", claudeBody(`{"role":"user","content":"MARK-11"}`))
	if resp.StatusCode != 200 || names(evs) != "message_start ping error" ||
		evs[2].data["error"].(map[string]any)["type"] != "overloaded_error" {
		t.Fatalf("status %d events %s %v", resp.StatusCode, names(evs), evs[len(evs)-1].data)
	}
	_, evs = post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,"tools":[{}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"MARK-11"}]}]}`)
	if names(evs) != "response.created response.failed" {
		t.Fatalf("events %s", names(evs))
	}
}
