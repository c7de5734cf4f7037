package workflow

import (
	"encoding/json"
	"time"
)

// The callback names of LineCallback's lines: the methods of Callback.
const (
	LineAgentStart     = "OnAgentStart"
	LineToolUse        = "OnToolUse"
	LineToolResult     = "OnToolResult"
	LineText           = "OnText"
	LineAgentEnd       = "OnAgentEnd"
	LineAgentFailed    = "OnAgentFailed"
	LineIterationStart = "OnIterationStart"
	LineIterationEnd   = "OnIterationEnd"
	// LineEvent is a line of the controller's event stream (the bus): an
	// event as the ledger records it.
	LineEvent = "OnEvent"
)

// Liner takes the lines a LineCallback writes: a LineSink, or anything
// that queues without waiting.
type Liner interface {
	// Offer takes line or drops it; it never waits. line may be shared
	// with other Liners: neither changes it.
	Offer(line []byte) bool
}

// Shedder is a Liner that can say, before a line is made, that it would
// drop it: a LineCallback then spends nothing on it.
type Shedder interface {
	// Shed reports true, and counts the line dropped, when a line
	// offered now would be dropped.
	Shed() bool
}

// LineCallback turns every callback event into one JSON line for an
// observer outside the process (a command's stdin, the debug log):
//
//	{"callback":"OnAgentStart","at":"…","task":"…","run":"…","agent":"I1-coder","role":"coder","iteration":1}
//
// Lines are encoded on the callback's dispatch goroutine, never the
// run's, and handed to Out without waiting.
type LineCallback struct {
	// Task and Run name the run in every line.
	Task, Run string
	Out       Liner
	// NoText leaves out OnText (the agents' lines): dispatch then hands
	// them to it not at all (see LineFilter).
	NoText bool
	// Now stamps the lines (time.Now when nil).
	Now func() time.Time
}

// WantsText implements LineFilter.
func (c *LineCallback) WantsText(Text) bool { return !c.NoText }

// WantsToolUse implements LineFilter.
func (c *LineCallback) WantsToolUse() bool { return true }

// line is the JSON shape of a callback event.
type line struct {
	Callback   string          `json:"callback"`
	At         string          `json:"at"`
	Task       string          `json:"task,omitempty"`
	Run        string          `json:"run,omitempty"`
	Agent      string          `json:"agent,omitempty"`
	Role       Role            `json:"role,omitempty"`
	Iteration  int             `json:"iteration"`
	Max        int             `json:"max_iterations,omitempty"`
	Resumed    bool            `json:"resumed,omitempty"`
	Tool       *lineTool       `json:"tool,omitempty"`
	ToolResult *lineToolResult `json:"tool_result,omitempty"`
	Text       *lineText       `json:"text,omitempty"`
	Output     *lineOutput     `json:"output,omitempty"`
	Error      string          `json:"error,omitempty"`
	Verdict    *Verdict        `json:"verdict,omitempty"`
	Decision   *JudgeDecision  `json:"decision,omitempty"`
}

type lineTool struct {
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
	ID     string `json:"id,omitempty"`
}

type lineToolResult struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	Denied bool   `json:"denied,omitempty"`
	Code   string `json:"code,omitempty"`
}

type lineText struct {
	Kind string `json:"kind"`
	Body string `json:"body"`
}

type lineOutput struct {
	Text string `json:"text,omitempty"`
}

var textKinds = [...]string{TextLine: "line", TextMessage: "message", TextResult: "result"}

func (c *LineCallback) emit(l line) {
	if s, ok := c.Out.(Shedder); ok && s.Shed() {
		return // a callback that does not keep up costs no encoding
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	l.At = now().UTC().Format(time.RFC3339Nano)
	l.Task, l.Run = c.Task, c.Run
	b, err := json.Marshal(l)
	if err != nil {
		return // every field is a plain value: cannot happen
	}
	c.Out.Offer(append(b, '\n'))
}

func agentLine(name string, a AgentInfo) line {
	return line{Callback: name, Agent: a.StepID, Role: a.Role, Iteration: a.Iteration}
}

// OnAgentStart implements Callback.
func (c *LineCallback) OnAgentStart(a AgentInfo) { c.emit(agentLine(LineAgentStart, a)) }

// OnToolUse implements Callback.
func (c *LineCallback) OnToolUse(a AgentInfo, t ToolUse) {
	l := agentLine(LineToolUse, a)
	l.Tool = &lineTool{Name: t.Name, Detail: t.Detail, ID: t.ID}
	c.emit(l)
}

// OnToolResult implements Callback.
func (c *LineCallback) OnToolResult(a AgentInfo, r ToolResult) {
	l := agentLine(LineToolResult, a)
	l.ToolResult = &lineToolResult{ID: r.ID, Name: r.Name, Detail: r.Detail, Failed: r.Failed, Denied: r.Denied, Code: r.Code}
	c.emit(l)
}

// OnText implements Callback.
func (c *LineCallback) OnText(a AgentInfo, t Text) {
	l := agentLine(LineText, a)
	kind := "line"
	if int(t.Kind) < len(textKinds) {
		kind = textKinds[t.Kind]
	}
	l.Text = &lineText{Kind: kind, Body: t.Body}
	c.emit(l)
}

// OnAgentEnd implements Callback.
func (c *LineCallback) OnAgentEnd(a AgentInfo, out Output) {
	l := agentLine(LineAgentEnd, a)
	l.Output = &lineOutput{Text: out.Text}
	l.Verdict = out.Verdict
	c.emit(l)
}

// OnAgentFailed implements Callback.
func (c *LineCallback) OnAgentFailed(a AgentInfo, err error) {
	l := agentLine(LineAgentFailed, a)
	if err != nil {
		l.Error = err.Error()
	}
	c.emit(l)
}

// OnIterationStart implements Callback.
func (c *LineCallback) OnIterationStart(it Iteration) {
	c.emit(line{Callback: LineIterationStart, Iteration: it.N, Max: it.Max, Resumed: it.Resumed})
}

// OnIterationEnd implements Callback.
func (c *LineCallback) OnIterationEnd(it Iteration, res IterationResult) {
	d := res.Decision
	c.emit(line{Callback: LineIterationEnd, Iteration: it.N, Max: it.Max, Verdict: res.Verdict, Decision: &d})
}
