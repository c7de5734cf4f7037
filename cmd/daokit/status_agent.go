package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/daokit/daokit/controller"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/vocab"
)

// printAgentState writes what the current step's agent CLI said about
// how its work goes, in the reader's language: why it failed when its
// own result named it ("authentication failed"), the request it is
// retrying ("Agent retrying (401 authentication_failed, 2/10)"), and the
// calls its permissions refused.
func (a *app) printAgentState(w io.Writer, p ledger.PipelineState) {
	step := p.CurrentStep
	if step == "" {
		return
	}
	// A run that failed or blocked, as the projection settles it: what
	// its agent said is why the person is needed.
	run := projection.Settled(projection.Entry{TaskID: p.TaskID, RunID: p.RunID}, vocab.Status(p.Status), "")
	if n := projection.Project(run, false).Need; n == projection.NeedFailed || n == projection.NeedBlocked {
		if code := strings.ToUpper(p.RoleLifecycle.Get("route:last_reason")); controller.IsAgentReason(code) {
			fmt.Fprintln(w, a.t("cli.status.agent.failed", "Reason", controller.ReasonText(a.loc, code)))
		}
	}
	if d := controller.AgentRetrying(p, step); d != "" {
		fmt.Fprintln(w, a.t("cli.status.agent.retrying", "Detail", d))
	}
	if d := controller.AgentDenied(p, step); d != "" {
		fmt.Fprintln(w, a.t("cli.status.agent.denied", "Calls", d))
	}
}
