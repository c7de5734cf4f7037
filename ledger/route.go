package ledger

import "strings"

// Route is where the controller routed the latest instruction: the five
// fields of the relay context's controller_route_summary. It is the one
// route type of daokit: the handoff package, the relay protocol, the
// window and compaction all use it, and PipelineState.Route reads it.
type Route struct {
	TaskID     string `json:"task_id"`
	RunID      string `json:"run_id"`
	ActiveLane string `json:"active_lane"`
	ActiveStep string `json:"active_step"`
	NextAction string `json:"next_action"`
}

// IsZero reports an empty route.
func (r Route) IsZero() bool { return r == Route{} }

// Route reads the route a pipeline records, text trimmed. A daokit
// controller keeps it in role_lifecycle (route:active_lane,
// route:next_action) beside current_step; for a ledger the Python tool
// wrote, the lane comes from "controller_lane" (and the step from
// "lane:<lane>" = "active_step:<step>"), the next action from
// "handoff_next_action", and a DONE pipeline without one is "complete".
func (p *PipelineState) Route() Route {
	lc := p.RoleLifecycle
	r := Route{TaskID: trimJSONSpace(p.TaskID), RunID: trimJSONSpace(p.RunID)}
	r.ActiveLane = trimJSONSpace(lc.Get("route:active_lane"))
	if r.ActiveLane == "" {
		r.ActiveLane = trimJSONSpace(lc.Get("controller_lane"))
		if step, ok := strings.CutPrefix(lc.Get("lane:"+r.ActiveLane), "active_step:"); ok && r.ActiveLane != "" {
			r.ActiveStep = trimJSONSpace(step)
		}
	}
	if r.ActiveStep == "" {
		r.ActiveStep = trimJSONSpace(p.CurrentStep)
	}
	r.NextAction = trimJSONSpace(lc.Get("route:next_action"))
	if r.NextAction == "" {
		r.NextAction = trimJSONSpace(lc.Get("handoff_next_action"))
	}
	if r.NextAction == "" && p.Status == StatusDone {
		r.NextAction = NextActionComplete
	}
	return r
}

// trimJSONSpace drops JSON white space (space, tab, CR, LF) at both ends.
func trimJSONSpace(s string) string { return strings.Trim(s, " \t\r\n") }
