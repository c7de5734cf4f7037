package workflow

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of the SummarizationCallback.
const (
	DefaultSummaryEveryToolUses = 5
	DefaultSummaryEvery         = 30 * time.Second
	// recentItems is how many recent lines an agent summarizer is shown.
	recentItems = 60
	maxEdited   = 50
)

// Facts is what the built-in extractive summarizer knows of a step so
// far: taken from its tool uses and output lines, never invented. The
// window renders them in the reader's language.
type Facts struct {
	StepID    string   `json:"step_id"`
	Role      Role     `json:"role"`
	Iteration int      `json:"iteration,omitempty"`
	Edited    []string `json:"edited"`
	ToolUses  int      `json:"tool_uses"`
	Commands  int      `json:"commands"`
	TestsRun  bool     `json:"tests_run"`
	Passing   int      `json:"passing"`
	Failing   []string `json:"failing"`
	// Denied lists the tool calls the agent was not allowed to make
	// ("Edit a.go", "Bash go build ./..."): they changed nothing.
	Denied []string `json:"denied"`
	Last   string   `json:"last,omitempty"`
}

// Summary is one summary of a step so far.
type Summary struct {
	Facts Facts
	// Text is the summary in words: the summarizer agent's, or the
	// extractive summarizer's rendering of Facts.
	Text string
	// By names the summarizer: "extractive" or "command".
	By string
	// Final marks the summary written when the step ended.
	Final bool
}

// Summarizer writes a summary of a step from its facts and its recent
// lines.
type Summarizer interface {
	Summarize(ctx context.Context, f Facts, recent []string) (Summary, error)
}

// Extractive is the built-in, deterministic summarizer: it states the
// facts (files edited, commands run, tests passing or failing), with no
// model and no key. Render words them; nil means English.
type Extractive struct{ Render func(Facts) string }

// Summarize implements Summarizer.
func (e Extractive) Summarize(_ context.Context, f Facts, _ []string) (Summary, error) {
	render := e.Render
	if render == nil {
		render = RenderFacts
	}
	return Summary{Facts: f, Text: render(f), By: "extractive"}, nil
}

// RenderFacts words facts in English: "edited 3 files (a.go, b.go, …);
// tests failing in pkg/api".
func RenderFacts(f Facts) string {
	var parts []string
	if n := len(f.Edited); n > 0 {
		parts = append(parts, fmt.Sprintf("edited %d file%s (%s)", n, plural(n), listSome(f.Edited, 3)))
	}
	switch {
	case len(f.Failing) > 0:
		parts = append(parts, "tests failing in "+listSome(f.Failing, 3))
	case f.TestsRun || f.Passing > 0:
		parts = append(parts, "tests passing")
	}
	if f.Commands > 0 {
		parts = append(parts, fmt.Sprintf("ran %d command%s", f.Commands, plural(f.Commands)))
	}
	if n := len(f.Denied); n > 0 {
		parts = append(parts, fmt.Sprintf("denied %d action%s (%s)", n, plural(n), listSome(f.Denied, 3)))
	}
	if len(parts) == 0 {
		if f.Last != "" {
			return f.Last
		}
		return "no changes yet"
	}
	return strings.Join(parts, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func listSome(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + ", …"
}

// CommandSummarizer hands the recent lines to a command (an agent CLI in
// print mode, say) on stdin and takes its standard output as the
// summary. If the command fails, the facts are worded instead.
type CommandSummarizer struct {
	Argv    []string
	Dir     string
	Timeout time.Duration
}

// Summarize implements Summarizer.
func (c CommandSummarizer) Summarize(ctx context.Context, f Facts, recent []string) (Summary, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Stdin = strings.NewReader("Summarize in one short line what this coding agent did so far:\n" + strings.Join(recent, "\n"))
	out, err := cmd.Output()
	text := strings.TrimSpace(string(out))
	if err != nil || text == "" {
		s, _ := Extractive{}.Summarize(ctx, f, recent)
		return s, err
	}
	return Summary{Facts: f, Text: clipRunes(strings.ReplaceAll(text, "\n", " "), maxReasonRunes), By: "command"}, nil
}

// EventCollector gathers the facts of the step in progress from its tool
// uses and lines, and keeps its recent lines for an agent summarizer.
type EventCollector struct {
	facts  Facts
	recent []string
	since  int // tool uses since the last summary
	// pending holds the edits and commands started and not yet ended,
	// by call id: they count when their result says they succeeded.
	pending map[string][]ToolUse
}

func (c *EventCollector) reset(a AgentInfo) {
	*c = EventCollector{facts: Facts{StepID: a.StepID, Role: a.Role, Iteration: a.Iteration}}
}

func (c *EventCollector) remember(line string) {
	if len(c.recent) == recentItems {
		c.recent = c.recent[1:]
	}
	c.recent = append(c.recent, line)
}

// text adds a line: test outcomes ("ok  \tpkg", "FAIL\tpkg", "--- FAIL:
// TestX") count; messages become the last word.
func (c *EventCollector) text(t Text) {
	line := strings.TrimSpace(t.Body)
	if line == "" {
		return
	}
	c.remember(line)
	c.testLine(line)
	c.facts.Last = clipRunes(line, 160)
}

// testLine counts a line of test output; it reports whether it was one
// and whether it was a failure.
func (c *EventCollector) testLine(line string) (test, failed bool) {
	fields := strings.Fields(line)
	switch {
	case len(fields) >= 2 && fields[0] == "ok":
		c.facts.Passing++
		c.facts.TestsRun = true
		c.facts.Failing = slices.DeleteFunc(c.facts.Failing, func(s string) bool { return s == shortPkg(fields[1]) })
		return true, false
	case len(fields) >= 2 && fields[0] == "FAIL":
		c.addFailing(shortPkg(fields[1]))
		return true, true
	case len(fields) >= 3 && fields[0] == "---" && fields[1] == "FAIL:":
		c.addFailing(fields[2])
		return true, true
	}
	return false, false
}

func (c *EventCollector) addFailing(s string) {
	c.facts.TestsRun = true
	if !slices.Contains(c.facts.Failing, s) && len(c.facts.Failing) < maxEdited {
		c.facts.Failing = append(c.facts.Failing, s)
	}
}

// shortPkg drops a module's host part: example.com/project/pkg/api →
// pkg/api (the last two elements).
func shortPkg(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 2 {
		return strings.Join(parts[len(parts)-2:], "/")
	}
	return p
}

// snapshot copies the facts and recent lines.
func (c *EventCollector) snapshot() (Facts, []string) {
	f := c.facts
	f.Edited, f.Failing, f.Denied = slices.Clone(f.Edited), slices.Clone(f.Failing), slices.Clone(f.Denied)
	return f, slices.Clone(c.recent)
}

// SummaryTimer fires a summary when a step has run Every without one.
type SummaryTimer struct {
	every time.Duration
	t     *time.Timer
}

func (t *SummaryTimer) start(fire func()) {
	if t.every > 0 {
		t.t = time.AfterFunc(t.every, fire)
	}
}

func (t *SummaryTimer) reset() {
	if t.t != nil {
		t.t.Reset(t.every)
	}
}

func (t *SummaryTimer) stop() {
	if t.t != nil {
		t.t.Stop()
		t.t = nil
	}
}

// SummaryOptions configure a SummarizationCallback.
type SummaryOptions struct {
	// EveryToolUses and Every: a summary after that many tool uses or
	// that much time without one (defaults 5 and 30s; negative: never).
	EveryToolUses int
	Every         time.Duration
	// Summarizer writes the summaries; nil means Extractive{}.
	Summarizer Summarizer
	// Sink receives every summary (on the callback's goroutine or the
	// timer's, never both at once).
	Sink func(Summary)
}

// SummarizationCallback writes a short summary of the step in progress
// every N tool uses or T seconds, and a final one when the step ends. It
// holds an EventCollector and a SummaryTimer; summarizing is its only
// job (the loop knows nothing of it).
type SummarizationCallback struct {
	NopCallback
	opts SummaryOptions

	mu     sync.Mutex // guards the collector against the timer
	col    EventCollector
	timer  SummaryTimer
	active bool
	gen    int // step generation; a late timer of an old step does nothing
}

// NewSummarizationCallback returns a callback with opts (defaults filled).
func NewSummarizationCallback(opts SummaryOptions) *SummarizationCallback {
	if opts.EveryToolUses == 0 {
		opts.EveryToolUses = DefaultSummaryEveryToolUses
	}
	if opts.Every == 0 {
		opts.Every = DefaultSummaryEvery
	}
	if opts.Summarizer == nil {
		opts.Summarizer = Extractive{}
	}
	return &SummarizationCallback{opts: opts, timer: SummaryTimer{every: max(opts.Every, 0)}}
}

// OnAgentStart implements Callback.
func (s *SummarizationCallback) OnAgentStart(a AgentInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timer.stop()
	s.col.reset(a)
	s.active = true
	s.gen++
	gen := s.gen
	s.timer.start(func() { s.tick(gen) })
}

// OnToolUse implements Callback.
func (s *SummarizationCallback) OnToolUse(_ AgentInfo, t ToolUse) {
	s.mu.Lock()
	s.col.toolUse(t)
	due := s.opts.EveryToolUses > 0 && s.col.since >= s.opts.EveryToolUses
	s.mu.Unlock()
	if due {
		s.summarize(false)
	}
}

// OnToolResult implements Callback.
func (s *SummarizationCallback) OnToolResult(_ AgentInfo, r ToolResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.col.toolResult(r)
}

// OnText implements Callback.
func (s *SummarizationCallback) OnText(_ AgentInfo, t Text) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.col.text(t)
}

// OnAgentEnd implements Callback: the step's final summary.
func (s *SummarizationCallback) OnAgentEnd(AgentInfo, Output) { s.end() }

// OnAgentFailed implements Callback: the failed step's final summary.
func (s *SummarizationCallback) OnAgentFailed(AgentInfo, error) { s.end() }

func (s *SummarizationCallback) end() {
	s.mu.Lock()
	s.timer.stop()
	worth := s.active && (s.col.facts.ToolUses > 0 || s.col.facts.Last != "")
	s.mu.Unlock()
	if worth {
		s.summarize(true)
	}
	s.mu.Lock()
	s.active = false
	s.mu.Unlock()
}

func (s *SummarizationCallback) tick(gen int) {
	s.mu.Lock()
	ok := s.active && s.gen == gen
	s.mu.Unlock()
	if ok {
		s.summarize(false)
	}
}

// summarize writes one summary of the step so far.
func (s *SummarizationCallback) summarize(final bool) {
	s.mu.Lock()
	f, recent := s.col.snapshot()
	s.col.since = 0
	s.timer.reset()
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, _ := s.opts.Summarizer.Summarize(ctx, f, recent)
	sum.Final = final
	if s.opts.Sink != nil {
		s.opts.Sink(sum)
	}
}
