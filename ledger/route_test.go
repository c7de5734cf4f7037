package ledger

import "testing"

func TestPipelineRoute(t *testing.T) {
	lc := func(kv ...string) Lifecycle {
		var l Lifecycle
		for i := 0; i+1 < len(kv); i += 2 {
			l = l.With(kv[i], kv[i+1])
		}
		return l
	}
	tests := []struct {
		name string
		p    PipelineState
		want Route
	}{
		{"daokit keys", PipelineState{TaskID: "T", RunID: "R", CurrentStep: "S2", Status: StatusExecute,
			RoleLifecycle: lc("route:active_lane", "worker", "route:next_action", "working")},
			Route{TaskID: "T", RunID: "R", ActiveLane: "worker", ActiveStep: "S2", NextAction: "working"}},
		{"python keys", PipelineState{TaskID: " T ", RunID: "R", CurrentStep: "S9", Status: StatusExecute,
			RoleLifecycle: lc("controller_lane", "codex", "lane:codex", "active_step:S3", "handoff_next_action", "resume")},
			Route{TaskID: "T", RunID: "R", ActiveLane: "codex", ActiveStep: "S3", NextAction: "resume"}},
		{"done without a next action", PipelineState{TaskID: "T", Status: StatusDone},
			Route{TaskID: "T", NextAction: NextActionComplete}},
		{"empty", PipelineState{}, Route{}},
	}
	for _, tt := range tests {
		if got := tt.p.Route(); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if !(Route{}).IsZero() || (Route{TaskID: "T"}).IsZero() {
		t.Error("IsZero")
	}
}
