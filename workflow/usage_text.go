package workflow

import (
	"strconv"

	"github.com/daokit/daokit/i18n"
)

// UsageNotes words what a run's usage line adds to its token and dollar
// counts, in loc's language: the cached part of the input, and where the
// run stands against its budget. Empty parts are left out.
func UsageNotes(loc *i18n.Localizer, p Progress) []string {
	var notes []string
	if c := p.Cost; c.CacheReadTokens != 0 || c.CacheCreationTokens != 0 {
		notes = append(notes, loc.T("workflow.usage.cache", "Read", c.CacheReadTokens, "Written", c.CacheCreationTokens))
	}
	if p.Budget > 0 {
		key := "workflow.budget.ok"
		switch p.BudgetState {
		case "warning", "exceeded":
			key = "workflow.budget." + p.BudgetState
		}
		notes = append(notes, loc.T(key, "Budget", "$"+strconv.FormatFloat(p.Budget, 'f', 2, 64)))
	}
	return notes
}
