package controller

import (
	"testing"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/worker/transcript"
	"github.com/daokit/daokit/workflow"
)

// Claude Code before model_usage_since_last_result reports its process's
// running totals: each process's reports count by their differences, and
// a second process (a resumed session starting again near zero) adds to
// the first. Prices cost what an agent reports without a cost.
func TestMeterAddsProcesses(t *testing.T) {
	var spent []workflow.Usage
	sink := func(u workflow.Usage) { spent = append(spent, u) }
	first := &usageMeter{spent: sink}
	first.increment(&transcript.Usage{InputTokens: 100, OutputTokens: 10, CostUSD: 0.004, Total: transcript.TotalProcess})
	first.increment(&transcript.Usage{InputTokens: 150, OutputTokens: 20, CostUSD: 0.007, Total: transcript.TotalProcess})
	second := &usageMeter{spent: sink}
	second.increment(&transcript.Usage{InputTokens: 80, OutputTokens: 5, CostUSD: 0.008, Total: transcript.TotalProcess})
	var sum workflow.Usage
	for _, u := range spent {
		sum.InputTokens += u.InputTokens
		sum.OutputTokens += u.OutputTokens
		sum.CostUSD += u.CostUSD
	}
	if sum.InputTokens != 230 || sum.OutputTokens != 25 || !near(sum.CostUSD, 0.015) {
		t.Fatalf("sum %+v, want 230/25/$0.015 (0.007 + 0.008)", sum)
	}
	priced := &usageMeter{price: config.Price{InputPerMTok: 1, OutputPerMTok: 10}, priced: true}
	if u := priced.increment(&transcript.Usage{InputTokens: 1e6, OutputTokens: 1e5}); !near(u.CostUSD, 2) {
		t.Fatalf("priced %+v", u)
	}
}

// A thread's running total counts above the thread's recorded total; a
// total of another thread, or one that shrank, counts whole.
func TestMeterThreadDelta(t *testing.T) {
	recorded := map[string]transcript.Usage{"T1": {InputTokens: 2200, CacheReadTokens: 300, OutputTokens: 50}}
	m := &usageMeter{
		threadTotal: func(th string) (transcript.Usage, bool) { u, ok := recorded[th]; return u, ok },
		record:      func(th string, u transcript.Usage) { recorded[th] = u },
	}
	m.session("T1")
	if u := m.increment(&transcript.Usage{InputTokens: 5900, CacheReadTokens: 900, OutputTokens: 90, Total: transcript.TotalThread}); u.InputTokens != 3700 || u.CacheReadTokens != 600 || u.OutputTokens != 40 {
		t.Fatalf("delta %+v", u)
	}
	if recorded["T1"].InputTokens != 5900 {
		t.Fatalf("recorded %+v", recorded)
	}
	m.session("T2")
	if u := m.increment(&transcript.Usage{InputTokens: 10, OutputTokens: 1, Total: transcript.TotalThread}); u.InputTokens != 10 {
		t.Fatalf("new thread %+v", u)
	}
	recorded["T3"] = transcript.Usage{InputTokens: 500}
	m.session("T3")
	if u := m.increment(&transcript.Usage{InputTokens: 100, Total: transcript.TotalThread}); u.InputTokens != 100 {
		t.Fatalf("shrunk total %+v", u)
	}
	if th, u, ok := parseThreadUsage(formatThreadUsage("T9", transcript.Usage{InputTokens: 1, CacheReadTokens: 2, OutputTokens: 3})); !ok || th != "T9" || u.OutputTokens != 3 {
		t.Fatalf("round trip %q %+v %v", th, u, ok)
	}
	if _, _, ok := parseThreadUsage("T9 x 2 3"); ok {
		t.Fatal("a bad number parsed")
	}
}
