package conversation

import (
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/workflow"
)

// Quiet and ordered: a step's run states make one line that shows the
// states it went through (generating → persisting → completed), moved
// to the end when it changes, instead of a line per state; a reviewer's
// step says its review once (the verdict, not also its summary); an
// event read twice (a re-scan of the ledger, a restored conversation)
// makes one entry; and the clock only moves forward down the pane.

// What a folded line is about, in its key.
const (
	foldRun    = 'r'
	foldReview = 'v'
)

// foldKey is the key of a folded line: what it is about, and its task,
// run and step.
func foldKey(what byte, task, run, step string) string {
	return strings.Join([]string{string(what), task, run, step}, "\x00")
}

// maxTrail is how many states a step's line shows; earlier ones are
// elided.
const maxTrail = 4

// labelTrail is the label kind of a run-state trail: states separated by
// spaces, each labelled in the reader's language.
const labelTrail = "run.trail"

// trailSep joins the states of a trail when drawn.
const trailSep = " → "

// foldRunState puts a run-state notice into its step's line.
func (m *Model) foldRunState(r live.RunState) {
	key := foldKey(foldRun, r.TaskID, r.RunID, r.StepID)
	var trail []string
	if i := m.find(key); i >= 0 {
		trail = m.entries[i].trail
		m.entries = append(m.entries[:i], m.entries[i+1:]...)
	}
	if n := len(trail); n == 0 || trail[n-1] != r.State {
		trail = append(trail, r.State)
	}
	shown := trail
	if len(shown) > maxTrail {
		shown = append([]string{"…"}, shown[len(shown)-maxTrail+1:]...)
	}
	step := m.Env.Clean(r.StepID)
	e := catalogEntry(KindController, "tui.conversation.run_state", "Step", step, "State", strings.Join(shown, " "))
	e.labeled = labels("State", labelTrail)
	if r.Reason != "" {
		e = catalogEntry(KindController, "tui.conversation.run_state_reason", "Step", step,
			"State", strings.Join(shown, " "), "Reason", r.Reason)
		e.labeled = labels("State", labelTrail, "Reason", component.KindReason)
	}
	e.fold, e.trail, e.task = key, trail, r.TaskID
	m.add(e)
}

// find returns the index of the entry folded under key, or -1.
func (m *Model) find(key string) int {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.entries[i].fold == key {
			return i
		}
	}
	return -1
}

// labelTrailOf words a trail in env's language.
func labelTrailOf(env *component.Env, trail string) string {
	states := strings.Fields(trail)
	for i, s := range states {
		if s != "…" {
			states[i] = env.Labels.Or(component.KindRun, s)
		}
	}
	return strings.Join(states, trailSep)
}

// reviewKey is the fold key of a step's review: its verdict and the
// reviewer's summary say the same, so the window shows one of them.
func reviewKey(e *ledger.Event) string {
	return foldKey(foldReview, e.TaskID, e.RunID, e.StepID)
}

// isReviewerSummary reports whether e is a reviewer step's summary.
func isReviewerSummary(e *ledger.Event) bool {
	return e.Payload.String("operation") == workflow.OpStepSummary && e.Payload.String("role") == string(workflow.RoleReviewer)
}

// seenEvent reports whether the ledger event id was made an entry
// already, and remembers it.
func (m *Model) seenEvent(id string) bool {
	if id == "" {
		return false
	}
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	if m.seen[id] {
		return true
	}
	if len(m.seen) >= 4*MaxEntries {
		// Bounded: keep the ids of the entries still shown.
		m.seen = map[string]bool{}
		for _, e := range m.entries {
			if e.event != "" {
				m.seen[e.event] = true
			}
		}
	}
	m.seen[id] = true
	return false
}
