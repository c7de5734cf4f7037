package workflow

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/i18n"
)

// RenderFactsIn words facts in loc's language (RenderFacts is the
// English default of the extractive summarizer): what the window shows
// of a step summary, whatever language the controller wrote it in.
func RenderFactsIn(loc *i18n.Localizer, f Facts) string {
	var parts []string
	if n := len(f.Edited); n > 0 {
		parts = append(parts, loc.T("workflow.summary.edited", "Files", listSome(f.Edited, 3), "Count", strconv.Itoa(n)))
	}
	switch {
	case len(f.Failing) > 0:
		parts = append(parts, loc.T("workflow.summary.failing", "Where", listSome(f.Failing, 3)))
	case f.TestsRun || f.Passing > 0:
		parts = append(parts, loc.T("workflow.summary.passing"))
	}
	if f.Commands > 0 {
		parts = append(parts, loc.T("workflow.summary.commands", "Count", strconv.Itoa(f.Commands)))
	}
	if n := len(f.Denied); n > 0 {
		parts = append(parts, loc.T("workflow.summary.denied", "Actions", listSome(f.Denied, 3), "Count", strconv.Itoa(n)))
	}
	if len(parts) == 0 {
		if f.Last != "" {
			return f.Last
		}
		return loc.T("workflow.summary.nothing")
	}
	return strings.Join(parts, loc.T("workflow.summary.sep"))
}
