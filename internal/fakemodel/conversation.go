package fakemodel

import (
	"encoding/json"
	"errors"
	"regexp"
	"sort"
	"strings"
)

// conversation is what the server reads from a request body: enough to
// pick the rule and the turn, nothing the answer depends on otherwise.
type conversation struct {
	Model  string
	Stream bool
	// Tools is the number of tools offered; Claude's side requests (titles,
	// topics, quota checks) offer none.
	Tools int
	// UserText is the user-side text in order (instruction, reminders,
	// tool results), one message a line.
	UserText string
	// Answers counts the model answers already in the history: a run of
	// consecutive assistant-side messages or items is one answer.
	Answers int
	// ToolResults are the tool results in the history, in order.
	ToolResults []string
	// Cwd is the agent's working folder as its CLI tells the model
	// (Claude's "Primary working directory:", Codex's <cwd>), or "".
	Cwd string
}

// cwdPatterns find the working folder in a request body's raw JSON.
var cwdPatterns = []*regexp.Regexp{
	regexp.MustCompile(`Primary working directory: ([^"\\]+)`),
	regexp.MustCompile(`<cwd>([^<"\\]+)</cwd>`),
}

// findCwd returns the first working folder named in body, or "".
func findCwd(body []byte) string {
	for _, re := range cwdPatterns {
		if m := re.FindSubmatch(body); m != nil {
			return strings.TrimSpace(string(m[1]))
		}
	}
	return ""
}

// errNotJSON is a body that is not a JSON object.
var errNotJSON = errors.New("request body is not a JSON object")

// anthropicRequest is the part of a Messages API request read here.
type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// anthropicBlock is one content block of a message.
type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// parseAnthropic reads a Messages API request body.
func parseAnthropic(body []byte) (conversation, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return conversation{}, errors.Join(errNotJSON, err)
	}
	c := conversation{Model: req.Model, Stream: req.Stream, Tools: len(req.Tools), Cwd: findCwd(body)}
	var user []string
	prev := ""
	for _, m := range req.Messages {
		if m.Role == "assistant" && syntheticAnswer(m.Content) {
			continue
		}
		if m.Role == "assistant" && prev != "assistant" {
			c.Answers++
		}
		prev = m.Role
		if m.Role != "user" {
			continue
		}
		texts, results := anthropicText(m.Content)
		user = append(user, texts...)
		c.ToolResults = append(c.ToolResults, results...)
	}
	c.UserText = strings.Join(user, "\n")
	return c, nil
}

// claudeSynthetic is the answer Claude Code writes into a resumed
// session in place of one the model never gave (the process was killed
// while it waited); it is not a model answer, so it uses no turn.
const claudeSynthetic = "No response requested."

// syntheticAnswer reports whether an assistant content is only that.
func syntheticAnswer(raw json.RawMessage) bool {
	texts, _ := anthropicText(raw)
	return len(texts) == 1 && strings.TrimSpace(texts[0]) == claudeSynthetic
}

// anthropicText returns the texts of a content (a string or blocks) and
// the texts of its tool results, which count as user text too.
func anthropicText(raw json.RawMessage) (texts, results []string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var blocks []anthropicBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, nil
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			inner, _ := anthropicText(b.Content)
			r := strings.Join(inner, "\n")
			texts = append(texts, r)
			results = append(results, r)
		}
	}
	return texts, results
}

// responsesRequest is the part of a Responses API request read here.
type responsesRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Tools        []json.RawMessage `json:"tools"`
	Input        []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"`
	} `json:"input"`
}

// parseResponses reads a Responses API request body.
func parseResponses(body []byte) (conversation, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return conversation{}, errors.Join(errNotJSON, err)
	}
	c := conversation{Model: req.Model, Stream: req.Stream, Tools: len(req.Tools), Cwd: findCwd(body)}
	var user []string
	inAnswer := false
	for _, it := range req.Input {
		typ := it.Type
		if typ == "" {
			typ = "message"
		}
		assistant := typ == "function_call" || typ == "reasoning" || typ == "custom_tool_call" ||
			typ == "local_shell_call" || (typ == "message" && it.Role == "assistant")
		if assistant && !inAnswer {
			c.Answers++
		}
		inAnswer = assistant
		switch {
		case typ == "message" && it.Role == "user":
			user = append(user, responsesText(it.Content)...)
		case typ == "function_call_output" || typ == "custom_tool_call_output":
			r := strings.Join(responsesText(it.Output), "\n")
			user = append(user, r)
			c.ToolResults = append(c.ToolResults, r)
		}
	}
	c.UserText = strings.Join(user, "\n")
	return c, nil
}

// responsesText returns the texts of a content or output: a string or a
// list of parts with a text.
func responsesText(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
