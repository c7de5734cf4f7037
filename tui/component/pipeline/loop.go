package pipeline

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/workflow"
)

// loopLines show where a loop stands: "iteration 2/3 · reviewer", and
// the last verdict with its reason; and, for any run whose agents report
// it, the tokens and cost so far.
func (m *Model) loopLines() []string {
	env := m.Env
	st := env.Styles
	prog := workflow.ProgressOf(m.p.RoleLifecycle.Get)
	var usage []string
	if c := prog.Cost; c != (workflow.Cost{}) {
		// What the agents reported they cost, in any workflow.
		usage = []string{" " + st.Muted.Render(env.T("tui.pipeline.usage")+" ") + env.T("tui.pipeline.usage_value",
			"In", c.InputTokens, "Out", c.OutputTokens, "USD", strconv.FormatFloat(c.CostUSD, 'f', 4, 64))}
		// The cached part of the input and the budget, a line each: the
		// pane is narrow.
		for _, note := range workflow.UsageNotes(env.Loc, prog) {
			usage = append(usage, "   "+note)
		}
	}
	if len(prog.NoChange) > 0 {
		// Nothing waited for the person's review: say so, or the pane
		// would look as if a review were missing.
		usage = append([]string{" " + st.Muted.Render(env.T("tui.pipeline.review")+" ") +
			env.T("tui.pipeline.no_change", "Steps", env.Clean(strings.Join(prog.NoChange, ", ")))}, usage...)
	}
	if !prog.Loop() {
		return usage
	}
	agent := ""
	if prog.Agent != "" && m.attn.Pipeline(m.p.TaskID, m.p.RunID, m.p.Status).Live {
		agent = env.T("workflow.role." + string(prog.Agent))
	}
	lines := []string{" " + st.Muted.Render(env.T("tui.pipeline.loop")+" ") +
		env.T("tui.pipeline.iteration", "N", prog.Iteration, "Max", prog.Max, "Agent", agent)}
	if prog.Verdict != "" {
		v := env.T("workflow.verdict." + string(prog.Verdict))
		if prog.VerdictReason != "" {
			v += " — " + env.Clean(prog.VerdictReason)
		}
		lines = append(lines, " "+st.Muted.Render(env.T("tui.pipeline.verdict")+" ")+v)
	}
	return append(lines, usage...)
}
