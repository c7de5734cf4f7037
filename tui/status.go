package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/live"
)

// answerStatus answers a /status the controller took, in the
// conversation: the route and the run's state in words, and the last
// event. The controller's acknowledgement carries its route; the rest is
// what the window shows.
func (m *Model) answerStatus(msg live.AnswerMsg) tea.Cmd {
	c, ok := msg.(live.ControlledMsg)
	if !ok || c.Kind != live.ControlStatus || c.Err != nil {
		return nil
	}
	env := m.env
	r := c.Ack.Route
	if r.IsZero() {
		r = m.route.Route()
	}
	none := env.T("tui.none")
	or := func(s string) string {
		if s == "" {
			return none
		}
		return env.Clean(s)
	}
	next := env.Labels.Or(component.KindNext, r.NextAction)
	state := env.Labels.Or(component.KindPipeline, m.pipe.Status())
	if st := m.attn.State(); st.IsCancelled(r.TaskID, r.RunID) {
		next, state = env.T("tui.route.cancelled"), env.Labels.Or(component.KindRun, "cancelled")
	}
	last := ""
	if e, ok := m.events.Last(); ok {
		at := ""
		if t, err := ledger.ParseTime(e.Timestamp); err == nil {
			at = env.Clock(t)
		}
		last = env.T("tui.status.last", "What", env.Labels.Or(component.KindEvent, e.EventType), "At", at)
	}
	return m.note(conversation.KindController, "tui.status.answer", "Task", or(r.TaskID), "Step", or(r.ActiveStep),
		"Lane", or(r.ActiveLane), "State", or(state), "Next", or(next), "Last", last)
}
