package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/workflow"
)

// flowJSON is the "workflow" object of status --json: where the run's
// workflow stands, read from its role_lifecycle, or nil for a run that
// recorded none.
func flowJSON(p ledger.PipelineState) any {
	prog := workflow.ProgressOf(p.RoleLifecycle.Get)
	if !prog.Loop() && prog.Verdict == "" && prog.Summary == "" && prog.Cost == (workflow.Cost{}) && len(prog.NoChange) == 0 {
		return nil
	}
	return ledger.ObjectOf("iteration", prog.Iteration, "max_iterations", prog.Max, "agent", string(prog.Agent),
		"verdict", string(prog.Verdict), "verdict_reason", prog.VerdictReason,
		"judge", prog.Judge, "decision", prog.Decision, "decision_code", prog.DecisionCode, "decision_reason", prog.DecisionReason,
		"summary", prog.Summary, "no_change", noChangeJSON(prog.NoChange), "metrics", ledger.ObjectOf("input_tokens", prog.Cost.InputTokens,
			"cache_read_tokens", prog.Cost.CacheReadTokens, "cache_creation_tokens", prog.Cost.CacheCreationTokens,
			"output_tokens", prog.Cost.OutputTokens, "cost_usd", prog.Cost.CostUSD,
			"budget_usd", prog.Budget, "budget_state", prog.BudgetState))
}

// printFlow writes where the run's workflow stands: the loop's iteration
// and who works, the last verdict, the judge's decision, the latest
// summary and the usage so far, each in the reader's language.
func (a *app) printFlow(w io.Writer, p ledger.PipelineState) {
	prog := workflow.ProgressOf(p.RoleLifecycle.Get)
	if prog.Loop() {
		agent := ""
		if prog.Agent != "" && p.Status != ledger.StatusDone {
			agent = a.t("workflow.role." + string(prog.Agent))
		}
		fmt.Fprintln(w, a.t("cli.status.flow.loop", "N", prog.Iteration, "Max", prog.Max, "Agent", agent))
	}
	if prog.Verdict != "" {
		fmt.Fprintln(w, a.t("cli.status.flow.verdict", "Verdict", a.t("workflow.verdict."+string(prog.Verdict)), "Reason", prog.VerdictReason))
	}
	if prog.Decision != "" {
		reason := prog.DecisionReason
		if reason == "" && prog.DecisionCode != "" {
			reason = vocab.Reason(prog.DecisionCode).Label(a.loc)
		}
		fmt.Fprintln(w, a.t("cli.status.flow.decision", "Judge", prog.Judge, "Decision", a.t("workflow.decision."+prog.Decision), "Reason", reason))
	}
	if prog.Summary != "" {
		fmt.Fprintln(w, a.t("cli.status.flow.summary", "Text", prog.Summary))
	}
	if len(prog.NoChange) > 0 {
		fmt.Fprintln(w, a.t("cli.status.no_change", "Steps", strings.Join(prog.NoChange, ", ")))
	}
	if c := prog.Cost; c != (workflow.Cost{}) {
		line := a.t("cli.status.flow.cost", "In", c.InputTokens, "Out", c.OutputTokens, "USD", strconv.FormatFloat(c.CostUSD, 'f', 4, 64))
		for _, note := range workflow.UsageNotes(a.loc, prog) {
			line += " · " + note
		}
		fmt.Fprintln(w, line)
	}
}

// noChangeJSON is the "no_change" list of status --json: the steps that
// changed nothing and ended without a review, [] for none.
func noChangeJSON(steps []string) []string {
	if steps == nil {
		return []string{}
	}
	return steps
}
