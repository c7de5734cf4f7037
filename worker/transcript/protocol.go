package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ProtocolPrefix starts every line of the worker protocol. It must stand
// at the very beginning of the line, followed by one JSON object; any
// other line is ordinary output, so a worker's own text can never be
// misread as a protocol message.
const ProtocolPrefix = "@daokit "

// ProtocolVersion is the version of the worker protocol this package
// speaks. A message may carry it as "v"; messages without "v" are read as
// version 1, and a higher version is read as far as it is understood.
const ProtocolVersion = 1

// protoMessage is the JSON object of a protocol line. Fields that a type
// does not use are ignored, and so are fields this version does not know.
type protoMessage struct {
	V       int         `json:"v,omitempty"`
	Type    string      `json:"type"`
	Message string      `json:"message,omitempty"` // progress, error
	Text    string      `json:"text,omitempty"`    // message
	Name    string      `json:"name,omitempty"`    // tool, tool_result
	Detail  string      `json:"detail,omitempty"`  // tool, tool_result
	ID      string      `json:"id,omitempty"`      // session; tool call id
	Summary string      `json:"summary,omitempty"` // result
	OK      *bool       `json:"ok,omitempty"`      // result, tool_result; absent means true
	Code    string      `json:"code,omitempty"`    // error, result
	Usage   *protoUsage `json:"usage,omitempty"`   // result
}

type protoUsage struct {
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	DurationMS   int64   `json:"duration_ms,omitempty"`
	Turns        int64   `json:"turns,omitempty"`
}

// ProtocolDecoder reads the daokit worker protocol from both streams. It
// has no state.
type ProtocolDecoder struct{}

var _ Decoder = ProtocolDecoder{}

// Decode implements Decoder.
func (ProtocolDecoder) Decode(_ Stream, line []byte) Decoded {
	rest, ok := bytes.CutPrefix(line, []byte(ProtocolPrefix))
	if !ok {
		return plain
	}
	var m protoMessage
	if err := json.Unmarshal(rest, &m); err != nil {
		return malformedLine
	}
	ev, status := m.event()
	if status != StatusEvent {
		return Decoded{Status: status}
	}
	return understood(ev)
}

// event converts a message, checking the field each type requires.
func (m *protoMessage) event() (Event, Status) {
	failed := m.OK != nil && !*m.OK
	switch EventType(m.Type) {
	case EventHeartbeat:
		return Event{Type: EventHeartbeat}, StatusEvent
	case EventProgress:
		return need(Event{Type: EventProgress, Text: m.Message}, m.Message)
	case EventMessage:
		return need(Event{Type: EventMessage, Text: m.Text}, m.Text)
	case EventTool:
		return need(Event{Type: EventTool, Tool: m.Name, Text: m.Detail, ID: m.ID}, m.Name)
	case EventToolResult:
		return need(Event{Type: EventToolResult, Tool: m.Name, Text: m.Detail, ID: m.ID, Failed: failed}, m.Name+m.ID)
	case EventSession:
		return need(Event{Type: EventSession, ID: m.ID}, m.ID)
	case EventResult:
		return Event{Type: EventResult, Text: m.Summary, Failed: failed, Code: m.Code, Usage: m.Usage.usage()}, StatusEvent
	case EventError:
		return need(Event{Type: EventError, Text: m.Message, Code: m.Code}, m.Message)
	case "":
		return Event{}, StatusMalformed
	}
	return Event{}, StatusUnknown
}

// need accepts ev only when its required field is not blank.
func need(ev Event, required string) (Event, Status) {
	if strings.TrimSpace(required) == "" {
		return Event{}, StatusMalformed
	}
	return ev, StatusEvent
}

func (u *protoUsage) usage() *Usage {
	if u == nil {
		return nil
	}
	return &Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD, DurationMS: u.DurationMS, Turns: u.Turns}
}

// FormatLine renders ev as one protocol line, without the newline. It is
// how the simulated worker speaks, and a reference for worker authors.
func FormatLine(ev Event) string {
	m := protoMessage{Type: string(ev.Type)}
	switch ev.Type {
	case EventProgress, EventError:
		m.Message, m.Code = ev.Text, ev.Code
	case EventMessage:
		m.Text = ev.Text
	case EventTool, EventToolResult:
		m.Name, m.Detail, m.ID = ev.Tool, ev.Text, ev.ID
	case EventSession:
		m.ID = ev.ID
	case EventResult:
		m.Summary, m.Code = ev.Text, ev.Code
		if u := ev.Usage; u != nil {
			m.Usage = &protoUsage{u.InputTokens, u.OutputTokens, u.CostUSD, u.DurationMS, u.Turns}
		}
	}
	if ev.Failed && (ev.Type == EventResult || ev.Type == EventToolResult) {
		ok := false
		m.OK = &ok
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// Keep <, > and & readable in logs; nothing here is embedded in HTML.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		// A struct of strings and numbers always encodes.
		return ProtocolPrefix + `{"type":"heartbeat"}`
	}
	return ProtocolPrefix + strings.TrimSuffix(b.String(), "\n")
}
