package controller

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/relay"
	"github.com/daokit/daokit/vocab"
	"github.com/daokit/daokit/workflow"
)

// Operations of the budget's SYSTEM events.
const (
	// opBudgetWarning: the run spent budgetWarnAt of its budget (payload:
	// spent_usd, budget_usd, percent).
	opBudgetWarning = string(vocab.OpBudgetWarning)
	// opBudgetExceeded: the run spent its budget; it stops BLOCKED before
	// its next step (payload: spent_usd, budget_usd, step).
	opBudgetExceeded = string(vocab.OpBudgetExceeded)
	// opBudgetExtended: a person retried a run stopped by its budget; it
	// may spend budget_usd more (payload: spent_usd, from_usd, to_usd).
	opBudgetExtended = string(vocab.OpBudgetExtended)
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

// budgetOf is what r may spend in all and whether it has a limit: the
// limit fixed when the run started (see fixBudget), or what a retry
// extended it to; "none" once a retry found no budget configured.
// Called on the state loop.
func (c *Controller) budgetOf(r *run) (float64, bool) {
	v := r.pipeline.RoleLifecycle.Get(keyBudgetUSD)
	if v == budgetNone {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return f, true
	}
	b := c.cfg.Workflow.BudgetUSD
	return b, b > 0
}

// budgetNone is keyBudgetUSD's value for a run without a limit.
const budgetNone = "none"

// fixBudget sets the limit of a run that has none yet, when it starts:
// budget_usd, or what remains of task_budget_usd after the task's other
// runs (see taskSpent), whichever is smaller. A run keeps the limit it
// started with, and status shows it from the start. Called by r's
// goroutine, outside the state loop.
func (c *Controller) fixBudget(r *run) {
	w := c.cfg.Workflow
	if w.BudgetUSD <= 0 && w.TaskBudgetUSD <= 0 {
		return
	}
	var fixed bool
	var taskID, runID string
	c.do(func(*loopState) {
		fixed = r.pipeline.RoleLifecycle.Get(keyBudgetUSD) != ""
		taskID, runID = r.pipeline.TaskID, r.pipeline.RunID
	})
	if fixed {
		return
	}
	limit := w.BudgetUSD
	if w.TaskBudgetUSD > 0 {
		left := max(w.TaskBudgetUSD-c.taskSpent(taskID, runID), 0)
		if limit <= 0 || left < limit {
			limit = left
		}
	}
	c.do(func(*loopState) {
		r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.With(keyBudgetUSD, strconv.FormatFloat(limit, 'f', -1, 64))
	})
}

// spend adds a worker's reported cost to r's spending, as the worker
// reports it (its step's metrics come later, at the step's end), and
// warns once the run crosses budgetWarnAt of its budget.
func (c *Controller) spend(r *run, u workflow.Usage) {
	if u.CostUSD <= 0 {
		return
	}
	var before, after, budget float64
	var limited, warned bool
	var step string
	var p ledger.PipelineState
	c.do(func(*loopState) {
		before = r.spent
		r.spent += u.CostUSD
		after = r.spent
		budget, limited = c.budgetOf(r)
		warned = r.pipeline.RoleLifecycle.Get(keyBudgetState) != ""
		step, p = r.pipeline.CurrentStep, r.pipeline
	})
	if !limited || budget <= 0 || warned || before >= budgetWarnAt*budget || after < budgetWarnAt*budget {
		return
	}
	percent := int(after / budget * 100)
	c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, opBudgetWarning,
		"spent_usd", after, "budget_usd", budget, "percent", percent))
	c.budgetState(r, "warning")
	c.say(p.TaskID, p.RunID, step, "controller.budget.warning",
		"Spent", usd(after), "Budget", usd(budget), "Percent", strconv.Itoa(percent))
}

// overBudget stops r before step when it spent its budget: the run ends
// BLOCKED with BUDGET_EXCEEDED, on step, which a retry starts. Called by
// r's goroutine before a worker starts.
func (c *Controller) overBudget(r *run, step, lane string) bool {
	var spent, budget float64
	var p ledger.PipelineState
	over := false
	c.do(func(*loopState) {
		var limited bool
		spent = r.spent
		budget, limited = c.budgetOf(r)
		if !limited || spent < budget {
			return
		}
		over = true
		setRoute(&r.pipeline, step, lane, nextDispatch)
		p = r.pipeline
	})
	if !over {
		return false
	}
	c.note(c.events.system(p.TaskID, p.RunID, step, ledger.SeverityWarn, opBudgetExceeded,
		"spent_usd", spent, "budget_usd", budget))
	c.budgetState(r, "exceeded")
	return true
}

// budgetState records where the run stands against its budget.
func (c *Controller) budgetState(r *run, state string) {
	c.do(func(*loopState) {
		r.pipeline.RoleLifecycle = r.pipeline.RoleLifecycle.With(keyBudgetState, state)
	})
	c.touch(r)
}

// extendBudget grants a run that its budget stopped another budget_usd
// (task_budget_usd when only that is set) when a person retries it, and
// says so: what it spent, and what it may now spend in all. Called before
// markRetry forgets the reason the run stopped.
func (c *Controller) extendBudget(r *run) {
	var from, spent, to float64
	var step, taskID, runID string
	extended := false
	c.do(func(*loopState) {
		p := &r.pipeline
		if p.RoleLifecycle.Get("route:last_reason") != strings.ToLower(ReasonBudgetExceeded) {
			return
		}
		extended = true
		from, _ = c.budgetOf(r)
		grant := c.cfg.Workflow.BudgetUSD
		spent = r.spent
		if grant <= 0 {
			grant = c.cfg.Workflow.TaskBudgetUSD
		}
		value := strconv.FormatFloat(spent+grant, 'f', -1, 64)
		to = spent + grant
		if grant <= 0 {
			to, value = 0, budgetNone // the limits were lifted from daokit.toml
		}
		p.RoleLifecycle = p.RoleLifecycle.With(keyBudgetUSD, value).Without(keyBudgetState)
		step, taskID, runID = p.CurrentStep, p.TaskID, p.RunID
	})
	if !extended {
		return
	}
	c.note(c.events.system(taskID, runID, step, ledger.SeverityInfo, opBudgetExtended,
		"spent_usd", spent, "from_usd", from, "to_usd", to))
	if to > 0 {
		c.say(taskID, runID, step, "controller.budget.retry", "Spent", usd(spent), "More", usd(to-spent), "Budget", usd(to))
	} else {
		c.say(taskID, runID, step, "controller.budget.retry_unlimited", "Spent", usd(spent))
	}
}

// say tells the windows something of a run's step on its output: the
// message id and its arguments, which each window words in its reader's
// language, and the controller's own wording for older clients. args
// alternate name and value.
func (c *Controller) say(taskID, runID, step, message string, args ...string) {
	kv := make([]any, len(args))
	named := make(map[string]string, len(args)/2)
	for i, a := range args {
		kv[i] = a
		if i%2 == 1 {
			named[args[i-1]] = a
		}
	}
	c.notify(relay.Notice{Kind: relay.NoticeWorkerOutput, Output: &relay.OutputLine{TaskID: taskID, RunID: runID,
		StepID: step, Stream: "stderr", Line: c.loc.T(message, kv...), Message: message, Args: named}})
}

// usd shows a dollar amount as the window and status do.
func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 4, 64) }
