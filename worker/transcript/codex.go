package transcript

import (
	"encoding/json"
	"strconv"
	"strings"
)

// codexDecoder reads the Codex CLI's "codex exec --json" event stream: one
// JSON object per stdout line, of type thread.started (thread_id, the
// resume handle), turn.started, item.started / item.updated /
// item.completed (item: agent_message, reasoning, command_execution,
// file_change, mcp_tool_call, web_search, todo_list, error, …),
// turn.completed (usage), turn.failed (error.message) and error (message).
// Early versions named the item's type "item_type" and the agent's text
// "assistant_message"; both are read.
type codexDecoder struct {
	// lastMessage is the agent's latest message, which becomes the
	// result's summary when the turn completes.
	lastMessage string
	// changing holds the file_change items whose tool calls were
	// reported when they started.
	changing map[string]bool
}

type codexLine struct {
	Type     string     `json:"type"`
	ThreadID string     `json:"thread_id"`
	Item     *codexItem `json:"item"`
	Message  string     `json:"message"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Usage *codexUsage `json:"usage"`
}

type codexItem struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	ItemType string `json:"item_type"`
	Text     string `json:"text"`
	Command  string `json:"command"`
	// AggregatedOutput is a command's stdout and stderr.
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         *int   `json:"exit_code"`
	Status           string `json:"status"`
	Server           string `json:"server"`
	Tool             string `json:"tool"`
	Query            string `json:"query"`
	Message          string `json:"message"`
	Changes          []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
	Items []struct {
		Completed bool `json:"completed"`
	} `json:"items"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (it *codexItem) kind() string {
	k := it.Type
	if k == "" {
		k = it.ItemType
	}
	if k == "assistant_message" {
		k = "agent_message"
	}
	return k
}

func (it *codexItem) failed() bool {
	return it.Status == "failed" || it.Status == "declined" || (it.ExitCode != nil && *it.ExitCode != 0) || it.Error != nil
}

// Decode implements Decoder.
func (d *codexDecoder) Decode(s Stream, line []byte) Decoded {
	if s != Stdout {
		return codexStderr(line)
	}
	var l codexLine
	if err := json.Unmarshal(line, &l); err != nil || l.Type == "" {
		return malformedLine
	}
	switch l.Type {
	case "thread.started":
		if l.ThreadID == "" {
			return malformedLine
		}
		return understood(Event{Type: EventSession, ID: l.ThreadID})
	case "turn.started", "item.plan.delta", "request_user_input":
		return understood(Event{Type: EventHeartbeat})
	case "turn.completed":
		return understood(Event{Type: EventResult, Text: d.lastMessage, Usage: l.Usage.usage()})
	case "turn.failed":
		msg := ""
		if l.Error != nil {
			msg = l.Error.Message
		}
		failure := codexFailure(msg)
		return understood(Event{Type: EventError, Text: msg, Failure: failure}, Event{Type: EventResult, Text: msg, Failed: true, Failure: failure})
	case "error":
		return requireText(codexError(l.Message), l.Message)
	case "item.started", "item.updated", "item.completed":
		if l.Item == nil {
			return malformedLine
		}
		return d.item(l.Type, l.Item)
	}
	return unknownLine
}

// requireText is need for a line whose only event is ev.
func requireText(ev Event, required string) Decoded {
	if _, st := need(ev, required); st != StatusEvent {
		return malformedLine
	}
	return understood(ev)
}

// item maps one item event. Started items become tool calls, completed
// ones their results; the agent's text arrives on completion.
func (d *codexDecoder) item(phase string, it *codexItem) Decoded {
	done := phase == "item.completed"
	started := phase == "item.started"
	switch it.kind() {
	case "agent_message":
		if !done {
			return understood(Event{Type: EventHeartbeat})
		}
		d.lastMessage = it.Text
		return understood(Event{Type: EventMessage, Text: it.Text})
	case "reasoning", "plan":
		if !done || strings.TrimSpace(it.Text) == "" {
			return understood(Event{Type: EventHeartbeat})
		}
		return understood(Event{Type: EventProgress, Text: OneLine(strings.Trim(it.Text, "* "), maxDetail)})
	case "command_execution":
		return understood(toolEvent(started, done, "shell", it.ID, OneLine(it.Command, maxDetail), it))
	case "file_change":
		var parts []string
		for _, c := range it.Changes {
			parts = append(parts, c.Kind+" "+c.Path)
		}
		ev := toolEvent(started, done, "file_change", it.ID, cutRunes(strings.Join(parts, ", "), maxDetail), it)
		switch {
		case started:
			if d.changing == nil {
				d.changing = map[string]bool{}
			}
			d.changing[it.ID] = true
			return understood(fileChanges(it)...)
		case done && !d.changing[it.ID]:
			return understood(append(fileChanges(it), ev)...)
		}
		delete(d.changing, it.ID)
		return understood(ev)
	case "mcp_tool_call":
		return understood(toolEvent(started, done, it.Server+"."+it.Tool, it.ID, "", it))
	case "web_search":
		return understood(toolEvent(started, done, "web_search", it.ID, OneLine(it.Query, maxDetail), it))
	case "collab_tool_call":
		return understood(toolEvent(started, done, "collab."+it.Tool, it.ID, "", it))
	case "todo_list":
		n := 0
		for _, t := range it.Items {
			if t.Completed {
				n++
			}
		}
		return understood(Event{Type: EventProgress, Text: "todo " + strconv.Itoa(n) + "/" + strconv.Itoa(len(it.Items))})
	case "error":
		// A non-fatal error item: reported, but the turn goes on.
		return requireText(Event{Type: EventError, Text: it.Message}, it.Message)
	case "":
		return malformedLine
	}
	return unknownLine
}

// toolEvent is a tool call when the item starts, its result when it
// completes, and a heartbeat for updates in between.
func toolEvent(started, done bool, tool, id, text string, it *codexItem) Event {
	switch {
	case started:
		return Event{Type: EventTool, Tool: tool, ID: id, Text: text}
	case done && it.Status == "declined":
		return denied(tool, text, id)
	case done:
		ev := Event{Type: EventToolResult, Tool: tool, ID: id, Text: text, Failed: it.failed()}
		if it.ExitCode != nil && *it.ExitCode != 0 {
			ev.Code = "exit " + strconv.Itoa(*it.ExitCode)
		}
		return codexResult(ev, it)
	}
	return Event{Type: EventHeartbeat}
}
