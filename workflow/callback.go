package workflow

// Callback observes a flow. Every method is called on the callback's own
// goroutine, in the order the events happened, never concurrently with
// another method of the same callback. A callback never changes what the
// flow does (vetoes are the pre-dispatch hook's job); embed NopCallback
// to implement only the methods you need.
type Callback interface {
	// OnAgentStart: an agent is about to run (not called for a step that
	// finished before a restart and is skipped).
	OnAgentStart(a AgentInfo)
	// OnToolUse: the agent started a tool (edit a file, run a command).
	OnToolUse(a AgentInfo, t ToolUse)
	// OnToolResult: a tool call ended (ran, failed or was denied); ID
	// matches it to its ToolUse.
	OnToolResult(a AgentInfo, r ToolResult)
	// OnText: the agent wrote a line or a message.
	OnText(a AgentInfo, t Text)
	// OnAgentEnd: the agent finished; out is what it said.
	OnAgentEnd(a AgentInfo, out Output)
	// OnAgentFailed: the agent failed; the flow stops.
	OnAgentFailed(a AgentInfo, err error)
	// OnIterationStart: a loop iteration begins (or resumes after a
	// restart, it.Resumed).
	OnIterationStart(it Iteration)
	// OnIterationEnd: the judge decided after the iteration.
	OnIterationEnd(it Iteration, res IterationResult)
}

// LineFilter is a Callback that wants only some of the lines and tool
// uses: dispatch hands a line (OnText) or a tool use (OnToolUse) to it
// only when it says so, so that a flood of output it ignores costs it
// neither queue nor calls. Other events always reach it.
type LineFilter interface {
	// WantsText reports whether OnText should hear t.
	WantsText(t Text) bool
	// WantsToolUse reports whether OnToolUse should hear tool uses.
	WantsToolUse() bool
}

// NopCallback does nothing; embed it in a callback that implements only
// some methods.
type NopCallback struct{}

// OnAgentStart implements Callback.
func (NopCallback) OnAgentStart(AgentInfo) {}

// OnToolUse implements Callback.
func (NopCallback) OnToolUse(AgentInfo, ToolUse) {}

// OnToolResult implements Callback.
func (NopCallback) OnToolResult(AgentInfo, ToolResult) {}

// OnText implements Callback.
func (NopCallback) OnText(AgentInfo, Text) {}

// OnAgentEnd implements Callback.
func (NopCallback) OnAgentEnd(AgentInfo, Output) {}

// OnAgentFailed implements Callback.
func (NopCallback) OnAgentFailed(AgentInfo, error) {}

// OnIterationStart implements Callback.
func (NopCallback) OnIterationStart(Iteration) {}

// OnIterationEnd implements Callback.
func (NopCallback) OnIterationEnd(Iteration, IterationResult) {}

// ToolUse is a tool call an agent started.
type ToolUse struct {
	Name   string // "edit", "Bash", "command_execution", …
	Detail string // its main argument: a path, a command
	// ID is the call's id, which its ToolResult repeats; empty when the
	// worker reports no results (then the use is taken as done).
	ID string
}

// ToolResult is how a tool call ended, as the agent's CLI reported it.
type ToolResult struct {
	ID     string
	Name   string
	Detail string // what the result line says in one line
	// Failed: the tool ran and failed (a command's non-zero exit, an
	// edit that did not apply). Denied: it was not allowed to run.
	Failed, Denied bool
	// Code is the worker's classification, e.g. "exit 1".
	Code string
	// Output is the end of the tool's output (test outcomes are read
	// from it).
	Output string
}

// TextKind says what a Text is.
type TextKind uint8

// The kinds of text.
const (
	TextLine    TextKind = iota // a line of output or a progress line
	TextMessage                 // a message the agent addressed to the person
	TextResult                  // the agent's result message
)

// Text is a line or message an agent wrote.
type Text struct {
	Kind TextKind
	Body string
	// Usage is what the work cost so far, on result messages that say.
	Usage *Usage
}

// Usage is what an agent's work cost since the last Usage of the same
// step: the controller turns the CLIs' running totals (Claude Code's per
// process, Codex's per thread) into such increments, so they add up.
type Usage struct {
	// InputTokens counts all input, cached or not; CacheReadTokens and
	// CacheCreationTokens say how much of it was read from or written to
	// the prompt cache.
	InputTokens, CacheReadTokens, CacheCreationTokens, OutputTokens int64
	CostUSD                                                         float64
}

// Iteration is a loop iteration as callbacks see it.
type Iteration struct {
	N, Max int
	// Resumed marks an iteration that a restarted controller continues:
	// some of its steps finished before.
	Resumed bool
}

// IterationResult is how an iteration ended.
type IterationResult struct {
	// Verdict is the iteration's review, if the reviewer gave one.
	Verdict *Verdict
	// Decision is the judge's.
	Decision JudgeDecision
}
