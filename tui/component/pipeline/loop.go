package pipeline

import (
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/workflow"
)

// loopLines show where a loop stands: "iteration 2/3 · reviewer", and
// the last verdict with its reason. A run that is no loop has none.
func (m *Model) loopLines() []string {
	env := m.Env
	st := env.Styles
	prog := workflow.ProgressOf(m.p.RoleLifecycle.Get)
	if !prog.Loop() {
		return nil
	}
	agent := ""
	if prog.Agent != "" && m.p.Status == ledger.StatusExecute {
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
	return lines
}
