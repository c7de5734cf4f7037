package relayctx

import (
	"context"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/compact"
	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/vocab"
)

// maxConstraints bounds the constraints kept: each is a sentence the
// person wrote, and a successor reads them all.
const maxConstraints = 32

// maxEarly bounds the instruction events kept until the saved context
// is read.
const maxEarly = 64

// constraintPrefixes start a line of an instruction that is a constraint
// (compared without case, after leading spaces).
var constraintPrefixes = []string{"constraint:", "约束：", "约束:"}

// ConstraintLines returns the constraints written in an instruction: the
// text after "Constraint:" or "约束：" of each line that starts with one,
// trimmed, blank ones left out.
func ConstraintLines(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		for _, p := range constraintPrefixes {
			if len(line) >= len(p) && strings.EqualFold(line[:len(p)], p) {
				if c := strings.TrimSpace(line[len(p):]); c != "" {
					out = append(out, c)
				}
				break
			}
		}
	}
	return out
}

// Constraints returns the constraints kept, oldest first (the numbers
// /constraint -N uses, from 1).
func (m *Model) Constraints() []string { return slices.Clone(m.constraints) }

// AddConstraints records constraints the person set; one already kept
// is not added twice. It reports how many were new.
func (m *Model) AddConstraints(ctx context.Context, cs ...string) (int, tea.Cmd) {
	n := m.addConstraints(cs)
	if n == 0 {
		return 0, nil
	}
	m.setFacts(compact.Facts{})
	return n, m.maybeCompact(ctx)
}

func (m *Model) addConstraints(cs []string) int {
	n := 0
	for _, c := range cs {
		c = strings.TrimSpace(c)
		if c == "" || slices.Contains(m.constraints, c) {
			continue
		}
		if len(m.constraints) >= maxConstraints {
			// The oldest gives way: the person's latest word counts most.
			m.constraints = slices.Delete(m.constraints, 0, 1)
		}
		m.constraints = append(m.constraints, c)
		n++
	}
	return n
}

// RemoveConstraint drops the nth constraint (from 1) and returns it;
// false when there is no such constraint.
func (m *Model) RemoveConstraint(ctx context.Context, n int) (string, bool, tea.Cmd) {
	if n < 1 || n > len(m.constraints) {
		return "", false, nil
	}
	gone := m.constraints[n-1]
	m.constraints = slices.Delete(slices.Clone(m.constraints), n-1, n)
	m.cut = m.policy.now()
	m.setFacts(compact.Facts{})
	return gone, true, m.maybeCompact(ctx)
}

// Missing returns the facts the latest self-check found missing (of the
// saved context when it was read, then of each compaction's result) that
// are missing still.
func (m *Model) Missing() []compact.Fact { return m.missing }

// setFacts writes the facts f knows, with the constraints kept, into the
// keep set and stamps it, unless that changes nothing: an unchanged
// context keeps its bytes, and the file is not written again.
func (m *Model) setFacts(f compact.Facts) {
	f.Constraints = slices.Clone(m.constraints)
	if f.Constraints == nil {
		f.Constraints = []string{}
	}
	if !changes(m.cur.Facts(), f) {
		return
	}
	at := ledger.FormatTime(m.policy.now())
	m.apply(func(c *compact.Context) {
		c.SetFacts(f)
		c.Stamp(at)
	})
	m.recheck()
}

// recheck clears from the self-check's mark the facts the context has
// learnt since: the mark names what is still missing of what the last
// self-check found, and a fact that arrives a moment after a compaction
// (the route of an acknowledgement) takes it off at once.
func (m *Model) recheck() {
	if len(m.missing) == 0 {
		return
	}
	now := m.cur.Facts().Missing()
	m.missing = slices.DeleteFunc(slices.Clone(m.missing), func(f compact.Fact) bool { return !slices.Contains(now, f) })
	if len(m.missing) == 0 {
		m.missing = nil
	}
}

// changes reports whether SetFacts(f) would change what cur says.
func changes(cur, f compact.Facts) bool {
	text := func(have, want string) bool { return strings.TrimSpace(want) != "" && have != strings.TrimSpace(want) }
	list := func(have, want []string) bool {
		return want != nil && (have == nil || !slices.Equal(have, trimmed(want)))
	}
	if text(cur.Goal, f.Goal) || text(cur.LatestInstruction, f.LatestInstruction) ||
		list(cur.Constraints, f.Constraints) || list(cur.CurrentBlockers, f.CurrentBlockers) {
		return true
	}
	r, w := cur.Route, f.Route
	return text(r.TaskID, w.TaskID) || text(r.RunID, w.RunID) || text(r.ActiveLane, w.ActiveLane) ||
		text(r.ActiveStep, w.ActiveStep) || text(r.NextAction, w.NextAction)
}

func trimmed(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// syncLedger brings the keep set up to date with what the ledger's
// pipeline says (goal, blockers, route) when that changed since the last
// snapshot: the saved context says BLOCKED while the run is blocked, not
// at the next compaction.
func (m *Model) syncLedger(known compact.Facts) {
	if sameFacts(known, m.synced) {
		return
	}
	m.synced = known
	m.setFacts(compact.Facts{Goal: known.Goal, CurrentBlockers: known.CurrentBlockers, Route: known.Route})
}

func sameFacts(a, b compact.Facts) bool {
	return a.Goal == b.Goal && a.Route == b.Route && (a.CurrentBlockers == nil) == (b.CurrentBlockers == nil) &&
		slices.Equal(a.CurrentBlockers, b.CurrentBlockers)
}

// instructionEvent takes the constraints and the text of an instruction
// the controller recorded (sent from this window, `daokit send` or any
// other client) unless the constraints were set whole after it (see
// Model.cut): a constraint removed since must not come back when the
// window reads the ledger again.
func (m *Model) instructionEvent(e *ledger.Event) {
	if e.EventType != ledger.EventSystem || e.Payload.String("operation") != string(vocab.OpInstruction) {
		return
	}
	if !m.loaded {
		// Only the saved context's stamp tells which are new: they wait
		// for it.
		if len(m.early) == maxEarly {
			m.early = slices.Delete(m.early, 0, 1)
		}
		m.early = append(m.early, *e)
		return
	}
	if at, err := ledger.ParseTime(e.Timestamp); err == nil && !m.cut.IsZero() && !at.After(m.cut) {
		return
	}
	text := e.Payload.String("text")
	m.addConstraints(ConstraintLines(text))
	if strings.TrimSpace(text) != m.cur.Facts().LatestInstruction {
		// Another client's instruction: a trigger like one typed here.
		m.pending.instructionSent(text)
	}
	m.setFacts(compact.Facts{LatestInstruction: text})
}
