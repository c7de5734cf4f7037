package conversation

import (
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
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

// foldRunState puts a run-state notice into its step's line. The line
// is the step's entry of the projection: the notice is folded into it,
// and the line shows the words the projection gave it one after the
// other, and the reason only the projection's detail names.
func (m *Model) foldRunState(r live.RunState) {
	key := foldKey(foldRun, r.TaskID, r.RunID, r.StepID)
	var trail []string
	slot := projection.Entry{TaskID: r.TaskID, RunID: r.RunID}
	if i := m.find(key); i >= 0 {
		trail, slot = m.entries[i].trail, m.entries[i].slot
		m.entries = append(m.entries[:i], m.entries[i+1:]...)
	}
	slot.Fold(projection.Update{TaskID: r.TaskID, RunID: r.RunID, StepID: r.StepID, Lane: r.Lane,
		State: vocab.RunState(r.State), Reason: vocab.Reason(r.Reason)})
	d := projection.Project(slot, true)
	if tok := trailToken(d.Word); len(trail) == 0 || trail[len(trail)-1] != tok {
		trail = append(trail, tok)
	}
	shown := trail
	if len(shown) > maxTrail {
		shown = append([]string{"…"}, shown[len(shown)-maxTrail+1:]...)
	}
	step := m.Env.Clean(r.StepID)
	e := catalogEntry(KindController, "tui.conversation.run_state", "Step", step, "State", strings.Join(shown, " "))
	e.labeled = labels("State", labelTrail)
	if why := d.Detail.Reason; why != "" {
		e = catalogEntry(KindController, "tui.conversation.run_state_reason", "Step", step,
			"State", strings.Join(shown, " "), "Reason", string(why))
		e.labeled = labels("State", labelTrail, "Reason", component.KindReason)
	}
	e.fold, e.trail, e.slot, e.task = key, trail, slot, r.TaskID
	m.add(e)
}

// trailToken is a word of the projection as a trail keeps it: a run
// state as it is stored (what lines saved by earlier windows hold),
// another word as its kind and value.
func trailToken(w projection.Word) string {
	if w.Kind == projection.WordRun {
		return w.Value
	}
	return string(w.Kind) + "=" + w.Value
}

// trailWord reads a trail token back.
func trailWord(tok string) projection.Word {
	if kind, value, ok := strings.Cut(tok, "="); ok {
		return projection.Word{Kind: projection.WordKind(kind), Value: value}
	}
	return projection.StateWord(vocab.RunState(tok))
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
			states[i] = component.Word(env, trailWord(s))
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
