package fakemodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Rule scripts one conversation. A request belongs to the first rule whose
// Match occurs in the conversation's user text (the instruction, system
// reminders, tool results); the number of model answers already in the
// request's history picks the turn, so a resumed session that sends its
// earlier conversation continues the script where it stopped.
type Rule struct {
	// Name labels the rule in recorded requests; Match when empty.
	Name string `json:"name,omitempty"`
	// Match is a substring of the conversation's user text; empty matches
	// every conversation (a fallback rule goes last).
	Match string `json:"match"`
	// All are more substrings that must all occur too: a reviewer's rule
	// adds a phrase only the reviewer's brief has (e.g. "VERDICT:").
	All []string `json:"all,omitempty"`
	// Turns answer the requests in order: Turns[i] answers a request whose
	// history holds i earlier model answers.
	Turns []Turn `json:"turns"`
	// After answers every request past the last turn; nil answers a short
	// text that ends the turn, so a CLI never loops on a missing script.
	After *Turn `json:"after,omitempty"`
}

// Turn is one model answer: an HTTP error, or text and tool calls.
type Turn struct {
	// Error, when set, answers the request with an HTTP error instead.
	Error *APIError `json:"error,omitempty"`
	// StreamError, when set, ends the answer with an error after the
	// stream began (HTTP 200): Claude gets an SSE "error" event after
	// message_start, Codex a response.failed; Status is not sent.
	StreamError *APIError `json:"stream_error,omitempty"`
	// Text is the assistant's text; it comes before the tool calls.
	Text string `json:"text,omitempty"`
	// Tools are the tool calls of this answer (Claude tool_use blocks,
	// Codex function_call items), in order.
	Tools []ToolCall `json:"tools,omitempty"`
	// Usage is reported for the answer; zero fields take small defaults.
	Usage Usage `json:"usage,omitempty"`
	// Hold keeps the first request that reaches this turn unanswered
	// until Release or until its client goes away (a killed CLI); later
	// requests of this turn are answered at once. It stops an agent
	// mid-step for as long as a test needs, with no timer.
	Hold bool `json:"hold,omitempty"`
	// StopReason overrides Claude's stop_reason (end_turn, or tool_use
	// when Tools is not empty); "max_tokens" or "refusal" script those ends.
	StopReason string `json:"stop_reason,omitempty"`
}

// APIError is an HTTP error answer as the provider sends it.
type APIError struct {
	// Status is the HTTP status: 401, 403, 429, 500, 529 …
	Status int `json:"status"`
	// Type is the provider's error type; empty picks the one the real API
	// sends for Status (authentication_error, rate_limit_error …).
	Type string `json:"type,omitempty"`
	// Message is the error's text; empty picks a realistic one.
	Message string `json:"message,omitempty"`
	// RetryAfter is sent as the retry-after header in seconds when > 0.
	RetryAfter int `json:"retry_after,omitempty"`
	// Times limits the error to the first Times requests that reach this
	// turn (0: every one); later ones get the turn's normal answer, which
	// scripts "fails twice, then works".
	Times int `json:"times,omitempty"`
}

// ToolCall is one call of a tool by the model.
type ToolCall struct {
	// Name is the tool: Write, Edit, Bash for Claude; exec_command for Codex.
	Name string `json:"name"`
	// Input is the tool's arguments as the CLI's tool schema names them.
	Input map[string]any `json:"input,omitempty"`
	// Freeform, when set, makes the call a Codex custom_tool_call whose
	// input is this text (Codex's apply_patch tool is freeform); Input is
	// then unused.
	Freeform string `json:"freeform,omitempty"`
}

// Usage is the token usage reported for one answer. Input excludes cache
// reads and writes, as Anthropic reports it; for Codex, CacheRead becomes
// input_tokens_details.cached_tokens and is part of input_tokens.
type Usage struct {
	Input         int `json:"input,omitempty"`
	Output        int `json:"output,omitempty"`
	CacheRead     int `json:"cache_read,omitempty"`
	CacheCreation int `json:"cache_creation,omitempty"`
}

// withDefaults fills a zero usage with small, distinct numbers.
func (u Usage) withDefaults() Usage {
	if u == (Usage{}) {
		return Usage{Input: 100, Output: 20}
	}
	return u
}

// matches reports whether the conversation's user text belongs to r.
func (r Rule) matches(userText string) bool {
	if !strings.Contains(userText, r.Match) {
		return false
	}
	for _, a := range r.All {
		if !strings.Contains(userText, a) {
			return false
		}
	}
	return true
}

// Say is a turn that only answers text and ends the turn.
func Say(text string) Turn { return Turn{Text: text} }

// Fail is a turn answered with an HTTP error of status (every time).
func Fail(status int) Turn { return Turn{Error: &APIError{Status: status}} }

// Call is a turn that calls tools, with an optional text before them.
func Call(text string, tools ...ToolCall) Turn { return Turn{Text: text, Tools: tools} }

// Cwd in a tool's string argument stands for the agent's working
// folder as its CLI told the model, so that a script can name absolute
// paths in a worktree it cannot know: Write(fakemodel.Cwd+"/a.txt", …).
const Cwd = "{cwd}"

// withCwd returns the turn with Cwd replaced by cwd in its tools' string
// arguments; the script itself is not changed.
func (t Turn) withCwd(cwd string) Turn {
	if cwd == "" || len(t.Tools) == 0 {
		return t
	}
	tools := make([]ToolCall, len(t.Tools))
	for i, c := range t.Tools {
		in := make(map[string]any, len(c.Input))
		for k, v := range c.Input {
			if s, ok := v.(string); ok {
				v = strings.ReplaceAll(s, Cwd, cwd)
			}
			in[k] = v
		}
		tools[i] = ToolCall{Name: c.Name, Input: in, Freeform: strings.ReplaceAll(c.Freeform, Cwd, cwd)}
	}
	t.Tools = tools
	return t
}

// Write is Claude's Write tool: the file at path gets content.
func Write(path, content string) ToolCall {
	return ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

// Edit is Claude's Edit tool: old becomes new in the file at path.
func Edit(path, old, new string) ToolCall {
	return ToolCall{Name: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

// Read is Claude's Read tool: the model reads the file at path.
func Read(path string) ToolCall {
	return ToolCall{Name: "Read", Input: map[string]any{"file_path": path}}
}

// Bash is Claude's Bash tool running command.
func Bash(command string) ToolCall {
	return ToolCall{Name: "Bash", Input: map[string]any{"command": command, "description": "run " + firstWord(command)}}
}

// Exec is Codex's exec_command tool running cmd in the session's folder.
func Exec(cmd string) ToolCall {
	return ToolCall{Name: "exec_command", Input: map[string]any{"cmd": cmd}}
}

// ApplyPatch is Codex's exec_command running an apply_patch heredoc that
// Codex intercepts and reports as a file_change: it adds the files (path,
// relative to the session's folder, to content), which must not exist
// yet. Codex refuses a patch with two operations on one file ("multiple
// operations target"), so an existing file changes by UpdatePatch.
func ApplyPatch(files map[string]string) ToolCall {
	var b strings.Builder
	b.WriteString("apply_patch <<'EOF'\n*** Begin Patch\n")
	for _, path := range sortedKeys(files) {
		fmt.Fprintf(&b, "*** Add File: %s\n", path)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(files[path], "\n"), "\n") {
			b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
	}
	b.WriteString("*** End Patch\nEOF\n")
	return Exec(b.String())
}

// Patch is Codex's freeform apply_patch tool with patch (from "*** Begin
// Patch" to "*** End Patch"), as a model that knows the tool calls it.
// Codex offers that tool for the models it has metadata for (gpt-5.5 in
// 0.169.0); for others use ApplyPatch or UpdatePatch.
func Patch(patch string) ToolCall {
	return ToolCall{Name: "apply_patch", Freeform: patch}
}

// PatchLine is Patch replacing the line old by new in the file at path.
func PatchLine(path, old, new string) ToolCall {
	return Patch(fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s\n*** End Patch\n", path, old, new))
}

// UpdatePatch is Codex's exec_command running an apply_patch heredoc that
// replaces the line old by new in the file at path.
func UpdatePatch(path, old, new string) ToolCall {
	return Exec(fmt.Sprintf("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: %s\n@@\n-%s\n+%s\n*** End Patch\nEOF\n", path, old, new))
}

// arguments is the JSON text of the call's input.
func (c ToolCall) arguments() string {
	b, err := json.Marshal(c.Input)
	if err != nil || c.Input == nil {
		return "{}"
	}
	return string(b)
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return "command"
}
