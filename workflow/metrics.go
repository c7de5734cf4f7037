package workflow

import "sync"

// Cost is what some work cost.
type Cost struct {
	// InputTokens counts all input tokens, the cached ones included;
	// CacheReadTokens and CacheCreationTokens are the cached parts.
	InputTokens         int64   `json:"input_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CostUSD             float64 `json:"cost_usd"`
}

// Add returns c plus d.
func (c Cost) Add(d Cost) Cost {
	return Cost{InputTokens: c.InputTokens + d.InputTokens, CacheReadTokens: c.CacheReadTokens + d.CacheReadTokens,
		CacheCreationTokens: c.CacheCreationTokens + d.CacheCreationTokens,
		OutputTokens:        c.OutputTokens + d.OutputTokens, CostUSD: c.CostUSD + d.CostUSD}
}

// Metrics is the cost of one finished step, of its iteration so far and
// of the run so far.
type Metrics struct {
	Agent           AgentInfo
	Step, Iter, Run Cost
}

// MetricsCallback adds up tokens and cost per step, iteration and run
// from what the agents' result messages report. The figures it is given
// are increments (see Usage): a step resumed in a second process adds
// that process's cost to the first's.
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

// WantsText implements LineFilter: only lines that report usage count.
func (m *MetricsCallback) WantsText(t Text) bool { return t.Usage != nil }

// WantsToolUse implements LineFilter: tool uses cost nothing of their own.
func (m *MetricsCallback) WantsToolUse() bool { return false }

// OnText implements Callback.
func (m *MetricsCallback) OnText(_ AgentInfo, t Text) {
	u := t.Usage
	if u == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.step = m.step.Add(Cost{InputTokens: u.InputTokens, CacheReadTokens: u.CacheReadTokens,
		CacheCreationTokens: u.CacheCreationTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD})
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
