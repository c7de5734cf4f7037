package compact

import (
	"testing"
	"time"

	"github.com/daokit/daokit/ledger"
)

// A daokit pipeline names its route in route:* keys, which win over the
// Python tool's controller_lane and handoff_next_action.
func TestPipelineFactsPrefersDaokitRouteKeys(t *testing.T) {
	t.Parallel()
	p := ledger.NewPipelineState(time.Now())
	p.TaskID, p.RunID, p.CurrentStep, p.Status = "T", "R", "S1", ledger.StatusDone
	p.RoleLifecycle = p.RoleLifecycle.With("controller_lane", "controller").With("lane:controller", "active_step:S1").
		With("handoff_next_action", "resume").With("route:active_lane", "worker").With("route:next_action", "none")
	r := PipelineFacts(p).Route
	if r.ActiveLane != "worker" || r.ActiveStep != "S1" || r.NextAction != "none" {
		t.Fatalf("route %+v, want worker/S1/none", r)
	}
	py := ledger.NewPipelineState(time.Now())
	py.TaskID, py.RunID = "T", "R"
	py.RoleLifecycle = py.RoleLifecycle.With("controller_lane", "controller").With("lane:controller", "active_step:S2").With("handoff_next_action", "resume")
	if r := PipelineFacts(py).Route; r.ActiveLane != "controller" || r.ActiveStep != "S2" || r.NextAction != "resume" {
		t.Fatalf("Python ledger route %+v", r)
	}
}
