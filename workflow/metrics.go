package workflow

import "sync"

// Cost is what some work cost.
type Cost struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Add returns c plus d.
func (c Cost) Add(d Cost) Cost {
	return Cost{c.InputTokens + d.InputTokens, c.OutputTokens + d.OutputTokens, c.CostUSD + d.CostUSD}
}

// Metrics is the cost of one finished step, of its iteration so far and
// of the run so far.
type Metrics struct {
	Agent           AgentInfo
	Step, Iter, Run Cost
}

// MetricsCallback adds up tokens and cost per step, iteration and run
// from what the agents' result messages report. A cumulative figure
// (Claude Code's total_cost_usd, the session's total so far) replaces the
// step's earlier one; others (Codex's turn.completed usage) add up.
type MetricsCallback struct {
	NopCallback
	sink func(Metrics)

	mu              sync.Mutex
	step, iter, run Cost
}

// NewMetricsCallback returns a callback that starts from run (what a run
// resumed after a restart had already cost) and hands every finished
// step's metrics to sink.
func NewMetricsCallback(run Cost, sink func(Metrics)) *MetricsCallback {
	return &MetricsCallback{run: run, sink: sink}
}

// OnIterationStart implements Callback.
func (m *MetricsCallback) OnIterationStart(Iteration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.iter = Cost{}
}

// OnAgentStart implements Callback.
func (m *MetricsCallback) OnAgentStart(AgentInfo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.step = Cost{}
}

// OnText implements Callback.
func (m *MetricsCallback) OnText(_ AgentInfo, t Text) {
	u := t.Usage
	if u == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := Cost{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD}
	if u.Cumulative {
		m.step = c
	} else {
		m.step = m.step.Add(c)
	}
}

// OnAgentEnd implements Callback.
func (m *MetricsCallback) OnAgentEnd(a AgentInfo, _ Output) { m.close(a) }

// OnAgentFailed implements Callback: a failed step cost money too.
func (m *MetricsCallback) OnAgentFailed(a AgentInfo, _ error) { m.close(a) }

func (m *MetricsCallback) close(a AgentInfo) {
	m.mu.Lock()
	m.iter = m.iter.Add(m.step)
	m.run = m.run.Add(m.step)
	out := Metrics{Agent: a, Step: m.step, Iter: m.iter, Run: m.run}
	m.step = Cost{}
	m.mu.Unlock()
	if m.sink != nil {
		m.sink(out)
	}
}
