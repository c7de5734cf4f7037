package live

import "github.com/daokit/daokit/ledger"

// Lifecycle keys the route is read from. daokit's controller writes the
// route:* keys; the Python DAOKit writes controller_lane and the
// handoff_next_action of a handoff.
const (
	keyActiveLane     = "route:active_lane"
	keyNextAction     = "route:next_action"
	keyControllerLane = "controller_lane"
	keyHandoffNext    = "handoff_next_action"
)

// RouteOf reads the route summary a pipeline records, for a window that
// has no controller to ask (watch mode, or before the first notice).
func RouteOf(p *ledger.PipelineState) Route {
	r := Route{TaskID: p.TaskID, RunID: p.RunID, ActiveStep: p.CurrentStep}
	r.ActiveLane = p.RoleLifecycle.Get(keyActiveLane)
	if r.ActiveLane == "" {
		r.ActiveLane = p.RoleLifecycle.Get(keyControllerLane)
	}
	r.NextAction = p.RoleLifecycle.Get(keyNextAction)
	if r.NextAction == "" {
		r.NextAction = p.RoleLifecycle.Get(keyHandoffNext)
	}
	return r
}

// IsZero reports an empty route.
func (r Route) IsZero() bool { return r == Route{} }
