package conversation

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/workflow"
)

// Label kinds of entry arguments that the workflow's events carry: a
// step summary's facts (JSON), and the vocabularies of verdicts and judge
// decisions. They are rendered in the reader's language when drawn.
const (
	labelFacts    = "facts"
	labelVerdict  = "workflow.verdict"
	labelDecision = "workflow.decision"
	labelRole     = "workflow.role"
)

// flow turns the workflow's events (summaries, verdicts, judge decisions)
// into the controller's entries. It reports whether the pane changed.
func (m *Model) flow(u live.LedgerUpdate) bool {
	changed := false
	for i := range u.Events {
		e := &u.Events[i]
		if m.seenEvent(e.EventID) {
			continue // read again: a re-scan, or a restored conversation
		}
		at, _ := ledger.ParseTime(e.Timestamp)
		step := e.StepID
		if e.EventType == ledger.EventAcceptancePassed && isTrue(e.Payload, "no_change") {
			// A step that changed nothing: no /accept is awaited.
			en := catalogEntry(KindController, "tui.conversation.no_change", "Step", step)
			en.at, en.task = at, e.TaskID
			m.add(en)
			changed = true
			continue
		}
		switch e.Payload.String("operation") {
		case workflow.OpStepSummary:
			if !isTrue(e.Payload, "final") && e.Payload.String("by") == "extractive" {
				// Only a step's last word when the summaries are the built-in
				// ones: a timed one would repeat it in the log.
				continue
			}
			text, how := e.Payload.String("text"), ""
			if raw, ok := e.Payload.Get("facts"); ok && e.Payload.String("by") == "extractive" {
				// Worded again in the reader's language each time it is drawn.
				text, how = string(raw), labelFacts
			}
			en := catalogEntry(KindController, "tui.conversation.summary", "Step", step, "Role", e.Payload.String("role"), "Summary", text)
			en.labeled = labels("Role", labelRole, "Summary", how)
			en.at, en.event, en.task = at, e.EventID, e.TaskID
			if isReviewerSummary(e) {
				if m.find(reviewKey(e)) >= 0 {
					continue // the verdict said it
				}
				en.fold = reviewKey(e)
			}
			m.add(en)
		case workflow.OpReviewVerdict:
			var findings []string
			if raw, ok := e.Payload.Get("findings"); ok {
				_ = json.Unmarshal(raw, &findings)
			}
			en := catalogEntry(KindController, "tui.conversation.verdict", "Step", step, "Verdict", e.Payload.String("verdict"),
				"Reason", e.Payload.String("reason"), "Findings", strings.Join(findings, "\n"))
			en.labeled = labels("Verdict", labelVerdict)
			en.at, en.event, en.fold, en.task = at, e.EventID, reviewKey(e), e.TaskID
			if i := m.find(en.fold); i >= 0 {
				// The reviewer's summary came first: the verdict says it
				// with the decision, in its place.
				en.at = m.entries[i].at
				m.entries[i] = en
				m.changes++
				break
			}
			m.add(en)
		case workflow.OpIterationFinished:
			en := catalogEntry(KindController, "tui.conversation.iteration", "N", number(e.Payload, "iteration"),
				"Max", number(e.Payload, "max_iterations"), "Decision", e.Payload.String("decision"), "Why", e.Payload.String("reason_code"))
			en.labeled = labels("Decision", labelDecision, "Why", component.KindReason)
			en.at, en.task = at, e.TaskID
			m.add(en)
		default:
			continue
		}
		changed = true
	}
	return changed
}

// label renders an argument by its label kind in env's language.
func label(env *component.Env, kind, value string) string {
	switch kind {
	case labelFacts:
		var f workflow.Facts
		if json.Unmarshal([]byte(value), &f) != nil {
			return value
		}
		return workflow.RenderFactsIn(env.Loc, f)
	case labelTrail:
		return labelTrailOf(env, value)
	case labelVerdict, labelDecision, labelRole:
		if value == "" {
			return value
		}
		return env.T(kind + "." + value)
	}
	return env.Labels.Or(kind, value)
}

func isTrue(o ledger.Object, key string) bool {
	raw, _ := o.Get(key)
	return string(raw) == "true"
}

func number(o ledger.Object, key string) string {
	raw, _ := o.Get(key)
	if _, err := strconv.Atoi(string(raw)); err != nil {
		return "?"
	}
	return string(raw)
}
