package events

import (
	"slices"
	"strings"

	"github.com/daokit/daokit/ledger"
)

// filter narrows the pane to events of one category (categoryOf), a
// minimum severity, or one step. The zero filter shows everything.
type filter struct {
	typ    string // a category
	text   string // text the event must contain (any case), from a search
	minSev int    // 0 all, 1 WARN and ERROR, 2 ERROR
	step   string
	// task is the task the window is focused on (FocusMsg): the pane's
	// own filters narrow within it, and clearing them keeps it.
	task string
}

func (f filter) active() bool { return f != filter{} }

func (f filter) match(ev *ledger.Event) bool {
	if f.typ != "" && categoryOf(ev) != f.typ {
		return false
	}
	if f.text != "" && !strings.Contains(strings.ToLower(searchText(ev)), strings.ToLower(f.text)) {
		return false
	}
	if f.step != "" && ev.StepID != f.step {
		return false
	}
	if f.task != "" && ev.TaskID != f.task {
		return false
	}
	return severityRank(ev.Severity) >= f.minSev
}

// searchText is what a search looks in: the type, the step and the
// payload as stored.
func searchText(ev *ledger.Event) string {
	payload, _ := ev.Payload.MarshalJSON()
	return ev.EventType + " " + ev.StepID + " " + string(payload)
}

// severityRank orders severities; unknown ones rank with INFO.
func severityRank(s string) int {
	switch s {
	case ledger.SeverityWarn:
		return 1
	case ledger.SeverityError:
		return 2
	}
	return 0
}

// severityOf names a minimum rank.
func severityOf(rank int) string {
	switch rank {
	case 1:
		return ledger.SeverityWarn
	case 2:
		return ledger.SeverityError
	}
	return ""
}

// seen remembers the values met so far, in first-seen order, for
// cycling a filter through them. It is bounded: a ledger with thousands
// of step ids cycles through the first ones.
type seen struct {
	order []string
	set   map[string]bool
}

const maxSeen = 64

func (s *seen) add(v string) {
	if v == "" || s.set[v] || len(s.order) >= maxSeen {
		return
	}
	if s.set == nil {
		s.set = map[string]bool{}
	}
	s.set[v] = true
	s.order = append(s.order, v)
}

// after returns the value that follows cur in the cycle "" → first → … →
// last → "".
func (s *seen) after(cur string) string {
	if cur == "" {
		if len(s.order) == 0 {
			return ""
		}
		return s.order[0]
	}
	i := slices.Index(s.order, cur)
	if i < 0 || i+1 >= len(s.order) {
		return ""
	}
	return s.order[i+1]
}
