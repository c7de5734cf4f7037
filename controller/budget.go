package controller

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/workflow"
)

// Operations of the budget's SYSTEM events.
const (
	// OpBudgetWarning: the run spent budgetWarnAt of its budget (payload:
	// spent_usd, budget_usd, percent).
	OpBudgetWarning = "BUDGET_WARNING"
	// OpBudgetExceeded: the run spent its budget; it stops BLOCKED before
	// its next step (payload: spent_usd, budget_usd, step).
	OpBudgetExceeded = "BUDGET_EXCEEDED"
	// OpBudgetExtended: a person retried a run stopped by its budget; it
	// may spend budget_usd more (payload: spent_usd, from_usd, to_usd).
	OpBudgetExtended = "BUDGET_EXTENDED"
)

// budgetWarnAt is the share of the budget spent at which the person is
// warned.
const budgetWarnAt = 0.8

// Lifecycle keys of the budget: what the run may spend in all (after
// retries that extended it), and "warning" or "exceeded" once it came to
// that. The window and status read them (workflow.ProgressOf).
const (
	keyBudgetUSD   = workflow.KeyBudgetUSD
	keyBudgetState = workflow.KeyBudgetState
)

// budgetOf is what r may spend in all: the configured budget_usd, or
// what retries extended it to; 0 for no limit. Called with c.mu held.
func (c *Controller) budgetOf(r *run) float64 {
	if v, err := strconv.ParseFloat(r.pipeline.RoleLifecycle.Get(keyBudgetUSD), 64); err == nil && v > 0 {
		return v
	}
	return c.cfg.Workflow.BudgetUSD
}

// spend adds a worker's reported cost to r's spending, as the worker
// reports it (its step's metrics come later, at the step's end), and
// warns once the run crosses budgetWarnAt of its budget.
func (c *Controller) spend(r *run, u workflow.Usage) {
	if u.CostUSD <= 0 {
		return
	}
	c.mu.Lock()
	before := r.spent
	r.spent += u.CostUSD
	after, budget := r.spent, c.budgetOf(r)
	warned := r.pipeline.RoleLifecycle.Get(keyBudgetState) != ""
	step, p := r.pipeline.CurrentStep, r.pipeline
	c.mu.Unlock()
	if budget <= 0 || warned || before >= budgetWarnAt*budget || after < budgetWarnAt*budget {
		return
	}
	percent := int(after / budget * 100)
	c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, OpBudgetWarning,
		"spent_usd", after, "budget_usd", budget, "percent", percent))
	c.budgetState(r, "warning", budget)
	c.notify(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &relay.OutputLine{TaskID: p.TaskID, RunID: p.RunID,
		StepID: step, Stream: "stderr", Line: c.loc.T("controller.budget.warning",
			"Spent", usd(after), "Budget", usd(budget), "Percent", percent)}})
}

// overBudget stops r before step when it spent its budget: the run ends
// BLOCKED with BUDGET_EXCEEDED, on step, which a retry starts. Called by
// r's goroutine before a worker starts.
func (c *Controller) overBudget(r *run, step, lane string) bool {
	c.mu.Lock()
	spent, budget := r.spent, c.budgetOf(r)
	if budget <= 0 || spent < budget {
		c.mu.Unlock()
		return false
	}
	setRoute(&r.pipeline, step, lane, NextDispatch)
	p := r.pipeline
	c.mu.Unlock()
	c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, OpBudgetExceeded,
		"spent_usd", spent, "budget_usd", budget))
	c.budgetState(r, "exceeded", budget)
	return true
}

// budgetState records where the run stands against its budget.
func (c *Controller) budgetState(r *run, state string, budget float64) {
	c.mu.Lock()
	r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.With(keyBudgetState, state).
		With(keyBudgetUSD, strconv.FormatFloat(budget, 'f', -1, 64))
	c.mu.Unlock()
	c.touch(r)
}

// extendBudget grants a run that its budget stopped another budget_usd
// when a person retries it, and says so: what it spent, and what it may
// now spend in all. Called before MarkRetry forgets the reason the run
// stopped.
func (c *Controller) extendBudget(r *run) {
	c.mu.Lock()
	p := &r.pipeline
	if p.RoleLifecycle.Get("route:last_reason") != strings.ToLower(ReasonBudgetExceeded) {
		c.mu.Unlock()
		return
	}
	from, spent := c.budgetOf(r), r.spent
	to := spent + c.cfg.Workflow.BudgetUSD
	if c.cfg.Workflow.BudgetUSD <= 0 {
		to = 0 // the limit was lifted from daokit.toml: none any more
	}
	p.RoleLifecycle = p.RoleLifecycle.With(keyBudgetUSD, strconv.FormatFloat(to, 'f', -1, 64)).Without(keyBudgetState)
	step, taskID, runID := p.CurrentStep, p.TaskID, p.RunID
	c.mu.Unlock()
	c.note(c.events.system(taskID, runID, step, ledger.SeverityInfo, OpBudgetExtended,
		"spent_usd", spent, "from_usd", from, "to_usd", to))
	line := c.loc.T("controller.budget.retry_unlimited", "Spent", usd(spent))
	if to > 0 {
		line = c.loc.T("controller.budget.retry", "Spent", usd(spent), "More", usd(to-spent), "Budget", usd(to))
	}
	c.notify(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &relay.OutputLine{TaskID: taskID, RunID: runID,
		StepID: step, Stream: "stderr", Line: line}})
}

// usd shows a dollar amount as the window and status do.
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 4, 64) }
