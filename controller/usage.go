package controller

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/config"
	"github.com/daokit/daokit/worker/transcript"
	"github.com/daokit/daokit/workflow"
)

// keySessionUsage, followed by the lane name, records the last running
// total a Codex thread reported: "<thread> <input> <cached> <output>". It
// lives with the lane's resume handle (see session.go) because it
// belongs to that thread, and it survives a controller restart: "codex
// exec resume" reports the thread's total, of which only the part after
// this one is new.
const keySessionUsage = "session_usage:"

// usageMeter turns the usage a step's worker reports into increments that
// add up (workflow.Usage), whatever the figures count (see
// transcript.UsageTotal): a process's running totals (older Claude
// Code) count by their difference from the process's previous report, so
// a resumed session's process adds to the first; a thread's running total
// (Codex after "exec resume") counts by its difference from the thread's
// last recorded total; increments (Claude Code 2.1.3xx's
// model_usage_since_last_result, the worker protocol) count as they are.
// A lane with a price gets a cost for tokens its agent reports without
// one (Codex). One meter serves one worker process.
type usageMeter struct {
	price  config.Price
	priced bool
	// last is this process's previous report (Claude Code).
	last transcript.Usage
	// thread is the session or thread the process works in, once
	// reported.
	thread string
	// threadTotal reads and record keeps a thread's last total.
	threadTotal func(thread string) (transcript.Usage, bool)
	record      func(thread string, total transcript.Usage)
	// spent receives every increment (for the run's budget).
	spent func(workflow.Usage)
}

// session notes the session or thread the process reports.
func (m *usageMeter) session(id string) {
	if m != nil {
		m.thread = id
	}
}

// increment returns the part of report that is new.
func (m *usageMeter) increment(report *transcript.Usage) *workflow.Usage {
	now := *report
	var base transcript.Usage
	switch {
	case now.Total == transcript.TotalProcess:
		base, m.last = m.last, now
	case now.Total == transcript.TotalThread && m.thread != "" && m.threadTotal != nil:
		if prev, ok := m.threadTotal(m.thread); ok && covers(now, prev) {
			base = prev
		}
		if m.record != nil {
			m.record(m.thread, now)
		}
	}
	out := &workflow.Usage{
		InputTokens:         now.InputTokens - base.InputTokens,
		CacheReadTokens:     now.CacheReadTokens - base.CacheReadTokens,
		CacheCreationTokens: now.CacheCreationTokens - base.CacheCreationTokens,
		OutputTokens:        now.OutputTokens - base.OutputTokens,
		CostUSD:             now.CostUSD - base.CostUSD,
	}
	if now.CostUSD == 0 && m.priced {
		out.CostUSD = m.price.Cost(out.InputTokens, out.OutputTokens)
	}
	if m.spent != nil {
		m.spent(*out)
	}
	return out
}

// covers reports whether total can be a later running total than prev: a
// thread's totals only grow. One that shrank is a new count (a thread id
// reused after its history was lost), taken whole.
func covers(total, prev transcript.Usage) bool {
	return total.InputTokens >= prev.InputTokens && total.OutputTokens >= prev.OutputTokens &&
		total.CacheReadTokens >= prev.CacheReadTokens
}

// formatThreadUsage and parseThreadUsage write and read keySessionUsage.
func formatThreadUsage(thread string, u transcript.Usage) string {
	return strings.Join([]string{thread, strconv.FormatInt(u.InputTokens, 10),
		strconv.FormatInt(u.CacheReadTokens, 10), strconv.FormatInt(u.OutputTokens, 10)}, " ")
}

func parseThreadUsage(v string) (thread string, u transcript.Usage, ok bool) {
	f := strings.Fields(v)
	if len(f) != 4 {
		return "", u, false
	}
	n := func(s string) int64 {
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			ok = false
		}
		return x
	}
	ok = true
	u.InputTokens, u.CacheReadTokens, u.OutputTokens = n(f[1]), n(f[2]), n(f[3])
	return f[0], u, ok
}

// meter builds the usage meter of one worker of r on lane.
func (c *Controller) meter(r *run, lane config.Lane) *usageMeter {
	var price config.Price
	var priced bool
	c.do(func(*loopState) {
		price, priced = c.cfg.Workflow.Prices[lane.Name]
	})
	return &usageMeter{price: price, priced: priced,
		threadTotal: func(thread string) (transcript.Usage, bool) {
			var v string
			c.do(func(*loopState) {
				v = r.pipeline.RoleLifecycle.Get(keySessionUsage + lane.Name)
			})
			t, u, ok := parseThreadUsage(v)
			return u, ok && t == thread
		},
		record: func(thread string, total transcript.Usage) {
			c.do(func(*loopState) {
				r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.With(keySessionUsage+lane.Name, formatThreadUsage(thread, total))
			})
			c.persistSoon(r)
		},
		spent: func(u workflow.Usage) { c.spend(r, u) },
	}
}
