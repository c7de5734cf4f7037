package transcript

// EventType is the kind of something a worker said, in daokit's terms.
// The values are stable: they appear in ledger payloads, and the window
// labels them with the message "worker.event.<type>".
type EventType string

// The event types. Session, result and error events are never dropped on
// the way to the consumer (see Record); the others may be, under a flood.
const (
	// EventHeartbeat is a sign of life with nothing to show.
	EventHeartbeat EventType = "heartbeat"
	// EventProgress is a short status line ("Reading main.go").
	EventProgress EventType = "progress"
	// EventMessage is text the agent addressed to the person.
	EventMessage EventType = "message"
	// EventTool is a tool call the agent started: Tool names it, Text
	// gives its main argument (a path, a command), ID its call id.
	EventTool EventType = "tool"
	// EventToolResult is the end of a tool call; Failed when it failed.
	EventToolResult EventType = "tool_result"
	// EventSession carries the worker's resume handle in ID (for agent
	// CLIs, their session or thread id).
	EventSession EventType = "session"
	// EventResult is the worker's final word: Text summarizes, Failed says
	// the worker itself judged the work failed, Usage counts the cost.
	EventResult EventType = "result"
	// EventError is an error the worker reported; Code may classify it.
	EventError EventType = "error"
	// EventDenied is a tool call the agent's own permissions refused
	// (Claude Code's permission_denials, a Codex sandbox rejection): Tool
	// names it, Text its target, ID its call id when known.
	EventDenied EventType = "denied"
	// EventRetry is an agent CLI retrying a request its model provider
	// failed; Retry says how, Failure what kind of failure it was.
	EventRetry EventType = "retry"
)

// EventTypes lists the event types in documentation order.
func EventTypes() []EventType {
	return []EventType{EventHeartbeat, EventProgress, EventMessage, EventTool, EventToolResult, EventSession, EventResult, EventError,
		EventDenied, EventRetry}
}

// Critical reports whether events of type t must reach the consumer even
// when output is being dropped: losing a resume handle or a result would
// change what the controller decides.
func (t EventType) Critical() bool {
	return t == EventSession || t == EventResult || t == EventError || t == EventDenied || t == EventRetry
}

// Event is one thing a worker said. Which fields are set depends on Type.
type Event struct {
	Type EventType
	// Text is the progress line, message, tool argument, result summary or
	// error message.
	Text string
	// Tool is the tool's name, for tool and tool_result events.
	Tool string
	// ID is the session id (session) or the tool call id (tool,
	// tool_result).
	ID string
	// Failed marks a failed result or tool result.
	Failed bool
	// Code is a worker-specific classification, e.g. Claude Code's result
	// subtype "error_max_turns".
	Code string
	// Usage is what the work cost, when the worker says (result events).
	Usage *Usage
	// Failure is what an agent CLI said went wrong, as one of the stable
	// failure kinds (the Fail constants), on result, error and retry
	// events; "" when it said nothing daokit can name.
	Failure string
	// Retry details a retry event.
	Retry *Retry
	// Output is the end of a tool's output (tool_result events of agent
	// CLIs, at most MaxToolOutput bytes): what the summarizer reads test
	// outcomes from.
	Output string
	// Denied marks a tool result that is a refusal to run the tool (a
	// permission or sandbox denial), not a run of it.
	Denied bool
}

// Usage is what a run cost, as far as the worker reports it. Zero means
// not reported.
type Usage struct {
	// InputTokens is every input token the model was sent, cached or not
	// (for Claude Code, input_tokens plus the cache reads and writes it
	// reports apart); the two cache counts say how much of it was cache.
	InputTokens         int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	OutputTokens        int64
	CostUSD             float64
	DurationMS          int64
	Turns               int64
	// Total says what the figures count: the increment since the
	// previous report (TotalNone), or a running total of the worker
	// process or of the agent's thread, from which the consumer takes
	// the difference.
	Total UsageTotal
}

// UsageTotal says over what a Usage's figures run.
type UsageTotal uint8

// The scopes of usage figures.
const (
	// TotalNone: the figures are what the work cost since the previous
	// report; they add up.
	TotalNone UsageTotal = iota
	// TotalProcess: the running total of one worker process (Claude Code
	// versions whose result has no model_usage_since_last_result).
	TotalProcess
	// TotalThread: the running total of the agent's thread, across
	// processes that resume it (Codex after "codex exec resume").
	TotalThread
)
