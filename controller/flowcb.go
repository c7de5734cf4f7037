package controller

import (
	"strconv"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// Operations of the SYSTEM events the workflow's callbacks write.
const (
	opIterationStarted  = workflow.OpIterationStarted
	opReviewVerdict     = workflow.OpReviewVerdict
	opIterationFinished = workflow.OpIterationFinished
	opStepSummary       = workflow.OpStepSummary
	opStepMetrics       = workflow.OpStepMetrics
)

// Lifecycle keys of the run's metrics and latest summary.
const (
	keyInputTokens  = workflow.KeyInputTokens
	keyOutputTokens = workflow.KeyOutputTokens
	keyCostUSD      = workflow.KeyCostUSD
	keySummary      = workflow.KeySummary
)

// flowCallbacks are the observers of r's workflow: the ledger writer,
// the summaries and the metrics. Everything the ledger and the window
// learn about the workflow comes through them.
func (c *Controller) flowCallbacks(r *run) []workflow.Callback {
	w := c.cfg.Workflow
	var summarizer workflow.Summarizer = workflow.Extractive{Render: c.renderFacts}
	if len(w.Summary.Command) > 0 {
		summarizer = workflow.CommandSummarizer{Argv: w.Summary.Command, Dir: c.opts.Root, Timeout: w.JudgeTimeout.Std()}
	}
	every, tools := w.Summary.Every.Std(), w.Summary.EveryToolUses
	if every == 0 {
		every = -1
	}
	if tools == 0 {
		tools = -1
	}
	var seed workflow.Cost
	c.do(func(*loopState) {
		seed = workflow.ProgressOf(r.pipeline.RoleLifecycle.Get).Cost
		// The budget counts from what the run had cost when its flow
		// (re)started: before a restart or a retry, say.
		r.spent = seed.CostUSD
	})
	c.fixBudget(r)
	lw := &ledgerCallback{c: c, r: r}
	return []workflow.Callback{
		lw,
		workflow.NewSummarizationCallback(workflow.SummaryOptions{EveryToolUses: tools, Every: every,
			Summarizer: summarizer, Sink: lw.summary}),
		workflow.NewMetricsCallback(seed, lw.metrics),
	}
}

// ledgerCallback writes what the workflow does to the ledger: iteration
// starts and ends, verdicts and judge decisions as events, and the
// loop's position in the pipeline's role_lifecycle for the window and
// status.
type ledgerCallback struct {
	workflow.NopCallback
	c *Controller
	r *run
}

// WantsText implements workflow.LineFilter: the ledger learns a
// worker's lines from the worker, not from the workflow.
func (l *ledgerCallback) WantsText(workflow.Text) bool { return false }

// WantsToolUse implements workflow.LineFilter.
func (l *ledgerCallback) WantsToolUse() bool { return false }

// set records lifecycle keys (empty values become "-": the contract wants
// non-empty strings), writes the pipeline and tells the windows.
func (l *ledgerCallback) set(kv ...string) {
	c, r := l.c, l.r
	var route ledger.Route
	c.do(func(*loopState) {
		for i := 0; i+1 < len(kv); i += 2 {
			v := kv[i+1]
			if v == "" {
				v = "-"
			}
			r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.With(kv[i], v)
		}
		route = r.pipeline.Route()
	})
	// What a callback records is for people, not for recovery: it goes to
	// disk with the next write, never with an fsync of its own.
	c.touch(r)
	c.notify(relay.Notice{Kind: relay.NoticeRoute, Route: &route})
}

func (l *ledgerCallback) event(step, severity, op string, kv ...any) {
	var taskID, runID string
	l.c.do(func(*loopState) { taskID, runID = l.r.pipeline.TaskID, l.r.pipeline.RunID })
	// Posted: what the callbacks write tells the story; resuming relies on
	// the pipeline and the steps' own events (see runMemory).
	l.c.note(l.c.events.system(taskID, runID, step, severity, op, kv...))
}

// OnIterationStart implements workflow.Callback.
func (l *ledgerCallback) OnIterationStart(it workflow.Iteration) {
	l.set(keyLoopIteration, strconv.Itoa(it.N), keyLoopMax, strconv.Itoa(it.Max), keyLoopAgent, string(workflow.RoleCoder))
	l.event(workflow.StepID(it.N, "coder"), ledger.SeverityInfo, opIterationStarted,
		"iteration", it.N, "max_iterations", it.Max, "resumed", it.Resumed)
}

// OnAgentStart implements workflow.Callback.
func (l *ledgerCallback) OnAgentStart(a workflow.AgentInfo) {
	if a.Iteration > 0 {
		l.set(keyLoopAgent, string(a.Role))
	}
}

// OnAgentEnd implements workflow.Callback: a reviewer's verdict, with its
// reason and findings, is an event of its own.
func (l *ledgerCallback) OnAgentEnd(a workflow.AgentInfo, out workflow.Output) {
	v := out.Verdict
	if v == nil || a.Role == workflow.RoleJudge {
		return
	}
	l.set(keyVerdict, string(v.Decision), keyVerdictReason, v.Reason)
	findings := v.Findings
	if findings == nil {
		findings = []string{}
	}
	l.event(a.StepID, ledger.SeverityInfo, opReviewVerdict, "iteration", a.Iteration, "role", string(a.Role),
		"verdict", string(v.Decision), "reason", v.Reason, "findings", findings, "escalate", v.Escalate)
}

// OnIterationEnd implements workflow.Callback: the judge's decision and
// its reason.
func (l *ledgerCallback) OnIterationEnd(it workflow.Iteration, res workflow.IterationResult) {
	d := res.Decision
	decision := "continue"
	switch {
	case d.Escalate:
		decision = "escalate"
	case d.Done:
		decision = "done"
	}
	verdict := ""
	if res.Verdict != nil {
		verdict = string(res.Verdict.Decision)
	}
	judge := l.c.cfg.Workflow.Judge
	l.set(keyDecision, decision, keyDecisionCode, d.Code, keyDecisionReason, clip(d.Reason, 200), keyJudge, judge)
	severity := ledger.SeverityInfo
	if !d.Done && it.N >= it.Max {
		severity = ledger.SeverityWarn
	}
	kv := []any{"iteration", it.N, "max_iterations", it.Max, "verdict", verdict, "judge", judge, "decision", decision,
		"reason_code", d.Code, "reason", d.Reason}
	if d.ProcessTime > 0 {
		// The judge command's own wall time (fork to reaping), in µs.
		kv = append(kv, "judge_process_us", d.ProcessTime.Microseconds())
	}
	l.event(workflow.StepID(it.N, workflow.JudgeStep), severity, opIterationFinished, kv...)
}

// summary records a SummarizationCallback summary.
func (l *ledgerCallback) summary(s workflow.Summary) {
	f := s.Facts
	l.set(keySummary, clip(s.Text, 200))
	l.event(f.StepID, ledger.SeverityInfo, opStepSummary, "iteration", f.Iteration, "role", string(f.Role),
		"text", s.Text, "by", s.By, "final", s.Final, "facts", ledger.ObjectOf(
			"edited", nonNil(f.Edited), "tool_uses", f.ToolUses, "commands", f.Commands,
			"tests_run", f.TestsRun, "passing", f.Passing, "failing", nonNil(f.Failing), "denied", nonNil(f.Denied), "unapplied", nonNil(f.Unapplied), "last", f.Last))
}

// metrics records a MetricsCallback measurement.
func (l *ledgerCallback) metrics(m workflow.Metrics) {
	if m.Step == (workflow.Cost{}) {
		return // a step whose agent reports no usage (sim, most commands, judges)
	}
	cost := func(c workflow.Cost) ledger.Object {
		return ledger.ObjectOf("input_tokens", c.InputTokens, "cache_read_tokens", c.CacheReadTokens,
			"cache_creation_tokens", c.CacheCreationTokens, "output_tokens", c.OutputTokens, "cost_usd", c.CostUSD)
	}
	l.set(keyInputTokens, strconv.FormatInt(m.Run.InputTokens, 10), keyOutputTokens, strconv.FormatInt(m.Run.OutputTokens, 10),
		workflow.KeyCacheReadTokens, strconv.FormatInt(m.Run.CacheReadTokens, 10),
		workflow.KeyCacheCreationTokens, strconv.FormatInt(m.Run.CacheCreationTokens, 10),
		keyCostUSD, strconv.FormatFloat(m.Run.CostUSD, 'f', -1, 64))
	l.event(m.Agent.StepID, ledger.SeverityInfo, opStepMetrics, "iteration", m.Agent.Iteration, "role", string(m.Agent.Role),
		"step", cost(m.Step), "iteration_total", cost(m.Iter), "run_total", cost(m.Run))
}

// renderFacts words a summary's facts in the workers' language.
func (c *Controller) renderFacts(f workflow.Facts) string { return workflow.RenderFactsIn(c.loc, f) }
