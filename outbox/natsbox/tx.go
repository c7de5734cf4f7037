package natsbox

import (
	"errors"
	"fmt"
	"slices"

	"github.com/daokit/daokit/outbox"
)

// tx computes one Change against a state without changing it: the
// issues it changes are copies, and what it did is the record (and the
// trigger keys) a batch then commits.
type tx struct {
	st      *state
	actor   string
	reader  string
	changed map[int64]*outbox.Issue
	rec     record
	touched map[int64]bool
	trigs   []triggerKey
	newTrig map[string]bool
	res     outbox.Result
}

func newTx(st *state, c outbox.Change, now int64) *tx {
	return &tx{st: st, actor: c.Actor, reader: c.Reader, changed: map[int64]*outbox.Issue{}, touched: map[int64]bool{},
		newTrig: map[string]bool{}, rec: record{Time: now}}
}

// errLost is an OpAssign whose IfAssignee did not hold.
var errLost = errors.New("natsbox: assignee changed")

// run computes the whole change (outbox.Change's rules, as the SQLite
// backend applies them).
func (t *tx) run(c outbox.Change) (stale bool, err error) {
	if c.Reader != "" && c.UpTo > 0 && t.st.cursors[c.Reader] >= c.UpTo {
		return true, nil
	}
	for _, lim := range c.Limits {
		if t.count(lim) >= lim.Max {
			t.res.OverLimit = true
			return false, nil
		}
	}
	parts := append([]outbox.Part{{Trigger: c.Trigger, Ops: c.Ops}}, c.Parts...)
	dups := make([]bool, 0, len(parts))
	losts := make([]bool, 0, len(parts))
	for _, part := range parts {
		dup := false
		if part.Trigger != "" {
			dup = t.st.triggers[c.Reader][part.Trigger] || t.newTrig[part.Trigger]
			if !dup {
				t.newTrig[part.Trigger] = true
				t.trigs = append(t.trigs, triggerKey{Reader: c.Reader, Key: part.Trigger, Event: c.UpTo})
			}
		}
		dups = append(dups, dup)
		lost := false
		for _, op := range part.Ops {
			if dup {
				break
			}
			if err := t.apply(op); errors.Is(err, errLost) {
				lost = true
				break
			} else if err != nil {
				return false, err
			}
		}
		losts = append(losts, lost)
	}
	t.res.Duplicate, t.res.PartDuplicate = dups[0], dups[1:]
	t.res.Lost, t.res.PartLost = losts[0], losts[1:]
	return false, nil
}

// count is a Limit's count on the state before the change.
func (t *tx) count(lim outbox.Limit) int {
	n := 0
	for _, is := range t.st.issues {
		if !is.Closed && slices.Contains(lim.Assignees, is.Assignee) && is.HasLabel(lim.Label) {
			n++
		}
	}
	return n
}

// issue returns the change's own copy of issue id.
func (t *tx) issue(id int64) (*outbox.Issue, bool) {
	if is, ok := t.changed[id]; ok {
		return is, true
	}
	is, ok := t.st.issues[id]
	if !ok {
		return nil, false
	}
	c := copyIssue(is)
	t.changed[id] = &c
	return &c, true
}

func (t *tx) target(op outbox.Op) (int64, *outbox.Issue, error) {
	id := op.Issue
	if id < 0 {
		k := int(-id)
		if k > len(t.res.Issues) {
			return 0, nil, fmt.Errorf("%w: issue %d of this change not opened yet", outbox.ErrInvalid, -k)
		}
		id = t.res.Issues[k-1]
	}
	is, ok := t.issue(id)
	if !ok {
		return 0, nil, fmt.Errorf("%w: issue #%d", outbox.ErrNotFound, id)
	}
	return id, is, nil
}

func (t *tx) event(kind outbox.EventKind, issue, comment int64, value, body string) {
	id := t.st.lastEvent + int64(len(t.rec.Events)) + 1
	t.rec.Events = append(t.rec.Events, outbox.Event{ID: id, Kind: kind, Issue: issue, Comment: comment, Actor: t.actor, Value: value, Body: body})
	t.res.Events = append(t.res.Events, id)
}

func (t *tx) apply(op outbox.Op) error {
	if op.Kind == outbox.OpOpen {
		t.open(op)
		return nil
	}
	id, is, err := t.target(op)
	if err != nil {
		return err
	}
	switch op.Kind {
	case outbox.OpComment:
		cid := t.st.lastComment + int64(len(t.rec.Comments)) + 1
		t.rec.Comments = append(t.rec.Comments, outbox.Comment{ID: cid, Issue: id, Author: t.actor, Body: op.Body})
		t.res.Comments = append(t.res.Comments, cid)
		t.event(outbox.EventCommented, id, cid, "", op.Body)
	case outbox.OpLabel, outbox.OpUnlabel:
		for _, l := range op.Labels {
			has := is.HasLabel(l)
			switch {
			case op.Kind == outbox.OpLabel && !has:
				is.Labels = addLabel(is.Labels, l)
				t.event(outbox.EventLabeled, id, 0, l, "")
			case op.Kind == outbox.OpUnlabel && has:
				is.Labels = slices.DeleteFunc(is.Labels, func(x string) bool { return x == l })
				t.event(outbox.EventUnlabeled, id, 0, l, "")
			}
		}
	case outbox.OpAssign:
		if op.IfAssignee != nil && !slices.Contains(op.IfAssignee, is.Assignee) {
			return errLost
		}
		if is.Assignee != op.Assignee {
			is.Assignee = op.Assignee
			t.event(outbox.EventAssigned, id, 0, op.Assignee, "")
		}
	case outbox.OpClose, outbox.OpReopen:
		want, kind := true, outbox.EventClosed
		if op.Kind == outbox.OpReopen {
			want, kind = false, outbox.EventReopened
		}
		if is.Closed != want {
			is.Closed = want
			t.event(kind, id, 0, "", "")
		}
	}
	if !t.touched[id] {
		t.touched[id] = true
		t.rec.Touched = append(t.rec.Touched, id)
	}
	return nil
}

func (t *tx) open(op outbox.Op) {
	id := t.st.lastIssue + int64(len(t.rec.Opened)) + 1
	var labels []string
	for _, l := range op.Labels {
		labels = addLabel(labels, l)
	}
	t.rec.Opened = append(t.rec.Opened, opened{ID: id, Title: op.Title, Body: op.Body, Author: t.actor, Assignee: op.Assignee, Labels: labels})
	t.changed[id] = &outbox.Issue{ID: id, Title: op.Title, Assignee: op.Assignee, Labels: slices.Clone(labels)}
	t.res.Issues = append(t.res.Issues, id)
	t.event(outbox.EventOpened, id, 0, "", "")
}
