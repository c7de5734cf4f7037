package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
)

// claudeDecoder reads Claude Code's print-mode event stream
// (claude -p --output-format stream-json --verbose): one JSON object per
// stdout line, of type "system" (subtype "init" carries session_id),
// "assistant" (message.content[]: text, tool_use, thinking blocks), "user"
// (tool_result blocks), "result" (the final outcome with cost and
// duration) and, with partial messages on, "stream_event".
type claudeDecoder struct {
	session string
	// tools maps a pending tool_use id to its tool name, so that its
	// result can say which tool it ends.
	tools map[string]string
	claudeOutcome
}

type claudeLine struct {
	Type      string                      `json:"type"`
	Subtype   string                      `json:"subtype"`
	SessionID string                      `json:"session_id"`
	Message   *claudeMessage              `json:"message"`
	Result    string                      `json:"result"`
	IsError   bool                        `json:"is_error"`
	Errors    json.RawMessage             `json:"errors"`
	Duration  int64                       `json:"duration_ms"`
	NumTurns  int64                       `json:"num_turns"`
	CostUSD   float64                     `json:"total_cost_usd"`
	Usage     *claudeUsage                `json:"usage"`
	SinceLast map[string]claudeModelUsage `json:"model_usage_since_last_result"`
	Meta      []claudeToolMeta            `json:"tool_result_meta"`
	claudeOutcomeLine
}

type claudeMessage struct {
	Content claudeContent `json:"content"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   claudeContent   `json:"content"`
	IsError   bool            `json:"is_error"`
}

// claudeContent is a message or tool result content: a plain string or a
// list of blocks.
type claudeContent []claudeBlock

// UnmarshalJSON accepts a string or a list of blocks.
func (c *claudeContent) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*c = claudeContent{{Type: "text", Text: s}}
		return nil
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(data, &blocks); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	*c = blocks
	return nil
}

// text joins the text blocks of c.
func (c claudeContent) text() string {
	var parts []string
	for _, b := range c {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Decode implements Decoder.
func (d *claudeDecoder) Decode(s Stream, line []byte) Decoded {
	if s != Stdout {
		return claudeStderr(line)
	}
	var l claudeLine
	if err := json.Unmarshal(line, &l); err != nil || l.Type == "" {
		return malformedLine
	}
	var events []Event
	if l.SessionID != "" && l.SessionID != d.session {
		d.session = l.SessionID
		events = append(events, Event{Type: EventSession, ID: l.SessionID})
	}
	switch l.Type {
	case "system", "stream_event":
		if ev, ok := d.system(&l); ok {
			events = append(events, ev)
			break
		}
		events = append(events, Event{Type: EventHeartbeat})
	case "assistant":
		if l.Message == nil {
			return malformedLine
		}
		d.noteAPIError(&l)
		events = append(events, d.assistant(l.Message.Content)...)
	case "user":
		if l.Message == nil {
			return malformedLine
		}
		events = append(events, d.toolResults(l.Message.Content, l.Meta)...)
	case "result":
		res := claudeResult(&l)
		events = append(append(events, d.result(&l, &res)...), res)
	default:
		if len(events) > 0 {
			// A new kind of line still told us the session.
			return understood(events...)
		}
		return unknownLine
	}
	if len(events) == 0 {
		events = append(events, Event{Type: EventHeartbeat})
	}
	return understood(events...)
}

func (d *claudeDecoder) assistant(content claudeContent) []Event {
	var events []Event
	for _, b := range content {
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				events = append(events, Event{Type: EventMessage, Text: b.Text})
			}
		case "tool_use":
			if d.tools == nil {
				d.tools = map[string]string{}
			}
			d.tools[b.ID] = b.Name
			arg := toolArgument(b.Input)
			d.noteTarget(b.ID, arg)
			events = append(events, Event{Type: EventTool, Tool: b.Name, ID: b.ID, Text: arg})
		}
	}
	return events
}

func (d *claudeDecoder) toolResults(content claudeContent, meta []claudeToolMeta) []Event {
	var events []Event
	for _, b := range content {
		if b.Type != "tool_result" {
			continue
		}
		name := d.tools[b.ToolUseID]
		delete(d.tools, b.ToolUseID)
		events = append(events, claudeToolResult(name, &b, meta))
	}
	return events
}

func claudeResult(l *claudeLine) Event {
	ev := Event{Type: EventResult, Text: l.Result, Failed: l.IsError || l.Subtype != "success"}
	if l.Subtype != "success" {
		ev.Code = l.Subtype
	}
	if ev.Text == "" && len(l.Errors) > 0 {
		var errs []string
		if json.Unmarshal(l.Errors, &errs) == nil {
			ev.Text = strings.Join(errs, "; ")
		}
	}
	ev.Usage = claudeUsageOf(l)
	return ev
}

// toolArgument picks the argument that says what a tool call does: the
// file, command, pattern or address, else the number of items.
func toolArgument(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"file_path", "notebook_path", "path", "command", "pattern", "url", "query", "description", "prompt"} {
		if s, ok := m[k].(string); ok && s != "" {
			return OneLine(s, maxDetail)
		}
	}
	for _, v := range m {
		if list, ok := v.([]any); ok {
			return fmt.Sprintf("%d", len(list))
		}
	}
	return ""
}
