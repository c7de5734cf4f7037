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
	// The run's state from the projection: a run a person ended reads
	// as what they did, with nothing next.
	st := m.attn.State()
	state := component.Word(env, st.Pipeline(r.TaskID, r.RunID, m.pipe.Status()).Word)
	next := env.Labels.Or(component.KindNext, r.NextAction)
	if st.EndedByPerson(r.TaskID, r.RunID) {
		next = env.T("tui.route.cancelled")
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
