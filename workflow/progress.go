package workflow

import (
	"strconv"
	"strings"
)

// Keys of a run's role_lifecycle under which the controller records
// where its workflow stands; the window and `daokit status` read them
// back with ProgressOf.
const (
	KeyKind           = "workflow:kind"
	KeyIteration      = "loop:iteration"
	KeyMax            = "loop:max"
	KeyAgent          = "loop:agent"
	KeyVerdict        = "loop:verdict"
	KeyVerdictReason  = "loop:verdict_reason"
	KeyDecision       = "loop:decision"
	KeyDecisionCode   = "loop:decision_code"
	KeyDecisionReason = "loop:decision_reason"
	KeyJudge          = "loop:judge"
	KeySummary        = "summary:last"
	KeyInputTokens    = "metrics:input_tokens"
	KeyOutputTokens   = "metrics:output_tokens"
	KeyCostUSD        = "metrics:cost_usd"
	// KeyCacheReadTokens and KeyCacheCreationTokens are the parts of
	// KeyInputTokens read from and written to the prompt cache.
	KeyCacheReadTokens     = "metrics:cache_read_tokens"
	KeyCacheCreationTokens = "metrics:cache_creation_tokens"
	// KeyBudgetUSD is what the run may spend in all (budget_usd, or more
	// after a retry extended it); KeyBudgetState is "warning" past 80 %
	// of it and "exceeded" once spent.
	KeyBudgetUSD   = "budget:usd"
	KeyBudgetState = "budget:state"
	// KeyNoChange lists, comma-separated, the steps whose worktree held
	// no change when they finished: they completed without a review.
	KeyNoChange = "delivery:no_change"
)

// Progress is a run's workflow as its pipeline records it.
type Progress struct {
	// Iteration and Max place a loop (0 when the run is no loop).
	Iteration, Max int
	// Agent is who works now: coder, reviewer or judge.
	Agent Role
	// Verdict and VerdictReason are the last review.
	Verdict       Decision
	VerdictReason string
	// Decision (continue, done, escalate), DecisionCode and
	// DecisionReason are the judge's last word; Judge names the judge.
	Decision, DecisionCode, DecisionReason, Judge string
	// Summary is the latest summary of a step.
	Summary string
	// Cost is what the run cost so far, as far as its agents report.
	Cost Cost
	// Budget is what the run may spend (0: no limit recorded), and
	// BudgetState "warning" or "exceeded" once it came to that.
	Budget      float64
	BudgetState string
	// NoChange are the steps that changed nothing in their worktree, so
	// nothing waited for review (see KeyNoChange).
	NoChange []string
}

// Loop reports whether the run is a loop.
func (p Progress) Loop() bool { return p.Max > 0 }

// ProgressOf reads a run's progress through get (a role_lifecycle's
// Get). Values "-" (the ledger's word for empty) read as empty.
func ProgressOf(get func(string) string) Progress {
	s := func(k string) string {
		if v := get(k); v != "-" {
			return v
		}
		return ""
	}
	n := func(k string) int { v, _ := strconv.Atoi(s(k)); return v }
	p := Progress{
		Iteration: n(KeyIteration), Max: n(KeyMax), Agent: Role(s(KeyAgent)),
		Verdict: Decision(s(KeyVerdict)), VerdictReason: s(KeyVerdictReason),
		Decision: s(KeyDecision), DecisionCode: s(KeyDecisionCode), DecisionReason: s(KeyDecisionReason),
		Judge: s(KeyJudge), Summary: s(KeySummary),
	}
	p.Cost.InputTokens, _ = strconv.ParseInt(s(KeyInputTokens), 10, 64)
	p.Cost.OutputTokens, _ = strconv.ParseInt(s(KeyOutputTokens), 10, 64)
	p.Cost.CacheReadTokens, _ = strconv.ParseInt(s(KeyCacheReadTokens), 10, 64)
	p.Cost.CacheCreationTokens, _ = strconv.ParseInt(s(KeyCacheCreationTokens), 10, 64)
	p.Cost.CostUSD, _ = strconv.ParseFloat(s(KeyCostUSD), 64)
	p.Budget, _ = strconv.ParseFloat(s(KeyBudgetUSD), 64)
	p.BudgetState = s(KeyBudgetState)
	if v := s(KeyNoChange); v != "" {
		p.NoChange = strings.Split(v, ",")
	}
	return p
}
