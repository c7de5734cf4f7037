package config

import "time"

// FlowKind is what an instruction becomes (workflow.kind).
type FlowKind string

// The workflow kinds.
const (
	// FlowSequential runs [[workflow.steps]] in order (the default, and
	// what every file without workflow.kind means).
	FlowSequential FlowKind = "sequential"
	// FlowSingle is one pass: the coder, then the reviewer. No judge.
	FlowSingle FlowKind = "single"
	// FlowLoop repeats coder → reviewer until the judge says done, at
	// most max_iterations times (then the run is BLOCKED).
	FlowLoop FlowKind = "loop"
)

// FlowKinds lists the workflow kinds in documentation order.
func FlowKinds() []FlowKind { return []FlowKind{FlowSequential, FlowSingle, FlowLoop} }

// The judges of a loop (workflow.judge).
const (
	// JudgeReviewerApproved: done when the reviewer approved.
	JudgeReviewerApproved = "reviewer_approved"
	// JudgeCommand: done when workflow.judge_command exits 0.
	JudgeCommand = "command"
	// JudgeAgent: the lane workflow.judge_lane decides, by its verdict.
	JudgeAgent = "agent"
)

// JudgeKinds lists the judges in documentation order.
func JudgeKinds() []string { return []string{JudgeReviewerApproved, JudgeCommand, JudgeAgent} }

// Defaults of the [workflow] settings.
const (
	DefaultMaxIterations = 3
	// MaxMaxIterations bounds max_iterations.
	MaxMaxIterations      = 1000
	DefaultJudgeTimeout   = 10 * time.Minute
	DefaultSummaryEvery   = 30 * time.Second
	DefaultSummaryToolUse = 5
)

// Flow returns the kind of the workflow: FlowSequential when not set.
func (w Workflow) Flow() FlowKind {
	if w.Kind == "" {
		return FlowSequential
	}
	return w.Kind
}

// Summaries configure the summaries written while a step runs
// ([workflow.summary]).
type Summaries struct {
	// EveryToolUses: a summary after this many tool uses. Default 5;
	// 0 turns this trigger off.
	EveryToolUses int `toml:"every_tool_uses"`
	// Every: a summary after this long without one. Default 30s; 0
	// turns this trigger off.
	Every Duration `toml:"every"`
	// Command, if set, is an agent command that writes the summary from
	// the step's recent lines on its stdin; empty means the built-in
	// extractive summarizer (no model, no key).
	Command []string `toml:"command"`
}

// Price is what a lane's model costs, for agents that report tokens but
// no cost (Codex): US dollars per million input and output tokens.
type Price struct {
	InputPerMTok  float64 `toml:"input_per_mtok"`
	OutputPerMTok float64 `toml:"output_per_mtok"`
}

// Cost returns what in and out tokens cost at p.
func (p Price) Cost(in, out int64) float64 {
	return (float64(in)*p.InputPerMTok + float64(out)*p.OutputPerMTok) / 1e6
}

func defaultWorkflow(lane string) Workflow {
	return Workflow{
		Steps:         []Step{DefaultStep(lane)},
		MaxIterations: DefaultMaxIterations,
		Judge:         JudgeReviewerApproved,
		JudgeTimeout:  Duration(DefaultJudgeTimeout),
		Summary:       Summaries{EveryToolUses: DefaultSummaryToolUse, Every: Duration(DefaultSummaryEvery)},
	}
}
