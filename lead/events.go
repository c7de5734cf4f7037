package lead

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
)

// effect is what the Lead commits for one event, and what it then
// changes in its own bookkeeping.
type effect struct {
	change outbox.Change
	after  func()
}

// react decides the effect of one event, or nil when the event needs
// none. It reads the outbox but writes nothing.
func (l *Lead) react(ctx context.Context, ev outbox.Event) (*effect, error) {
	if (ev.Kind == outbox.EventLabeled || ev.Kind == outbox.EventUnlabeled) && ev.Value == roster.To(l.o.Role) || ev.Kind == outbox.EventAssigned {
		delete(l.toMe, ev.Issue)
	}
	if (ev.Kind == outbox.EventLabeled || ev.Kind == outbox.EventUnlabeled) && ev.Value == roster.LabelAccepted ||
		ev.Kind == outbox.EventCommented && l.memoryWriter != "" && ev.Actor == l.memoryWriter {
		l.mu.Lock()
		l.memoryDirty = true
		l.mu.Unlock()
	}
	switch ev.Kind {
	case outbox.EventOpened:
		return l.onAddressed(ctx, ev)
	case outbox.EventAssigned:
		// An assignment to the role (not the Lead's own claim).
		if ev.Actor != l.actor && l.assignedToRole(ev.Value) {
			return l.onAddressed(ctx, ev)
		}
	case outbox.EventLabeled:
		switch {
		case ev.Value == roster.To(l.o.Role):
			return l.onAddressed(ctx, ev)
		case ev.Value == roster.LabelAccepted:
			return l.onStamped(ctx, ev)
		}
	case outbox.EventCommented:
		// Never react to a Lead's comment, ours or another's: that is what
		// keeps two Leads on one issue from answering each other forever.
		if roster.IsLead(ev.Actor) {
			return nil, nil
		}
		return l.onComment(ctx, ev)
	case outbox.EventClosed:
		return l.onClosed(ctx, ev)
	}
	return nil, nil
}

// claimable: open, not someone else's, not under way, and addressed to
// the role: its to:<role> label, an assignment to the role, or (mentioned)
// an @<role> mention on an issue no to: label gives to another role.
func (l *Lead) claimable(is outbox.Issue, mentioned bool) bool {
	if is.Closed || is.LabelWithPrefix("state:") != "" || (is.Assignee != "" && !l.assignedToRole(is.Assignee)) {
		return false
	}
	return is.HasLabel(roster.To(l.o.Role)) || l.assignedToRole(is.Assignee) || (mentioned && is.LabelWithPrefix("to:") == "")
}

// claimOps set the assignee (the claim) and queue the issue. An issue
// with a Split field is split: one sub-issue per part, addressed to the
// role and labelled parent:<id>; the parent then waits for them (see
// children) and its own Worker integrates at the end.
func (l *Lead) claimOps(is outbox.Issue, readUpTo int64) []outbox.Op {
	m := outbox.Mailbox{Text: fmt.Sprintf("%s claims #%d and queues it for a Worker.", l.actor, is.ID), Fields: map[string]string{
		outbox.FieldState: roster.LabelQueued, outbox.FieldReadUpTo: strconv.FormatInt(readUpTo, 10)}}
	labels := []string{roster.LabelQueued}
	if !is.HasLabel(roster.To(l.o.Role)) {
		// Taken by an assignment or a mention: the label makes it the
		// role's in every list (and for depends_on) from now on.
		labels = append(labels, roster.To(l.o.Role))
	}
	ops := []outbox.Op{
		// Only while still free: two Leads addressed at once (an issue
		// mentioning @backend and @qa) race, and the second claim is lost.
		{Kind: outbox.OpAssign, Issue: is.ID, Assignee: l.actor, IfAssignee: []string{"", l.o.Role, l.actor}},
		{Kind: outbox.OpLabel, Issue: is.ID, Labels: labels},
	}
	body := outbox.ParseMailbox(is.Body)
	var parts []string
	for _, p := range strings.Split(body.Fields[outbox.FieldSplit], ";") {
		if p = strings.TrimSpace(p); p != "" && len(parts) < maxSplit {
			parts = append(parts, p)
		}
	}
	for _, p := range parts {
		ops = append(ops, outbox.Op{Kind: outbox.OpOpen, Title: p, Body: fmt.Sprintf("Part of #%d.", is.ID),
			Labels: []string{roster.To(l.o.Role), parentLabel(is.ID)}})
	}
	if len(parts) > 0 {
		m.Text = fmt.Sprintf("%s claims #%d and splits it into %d sub-issues; it waits for them.", l.actor, is.ID, len(parts))
	}
	if said := body.NotTaken(); said != "" {
		m.Text += "\n" + notTaken + "\n" + said
	}
	return append(ops, outbox.Op{Kind: outbox.OpComment, Issue: is.ID, Body: m.Render()})
}

// notTaken heads the fields of a comment, an issue or a Worker's output
// that break the mailbox contract (outbox.Mailbox.NotTaken).
const notTaken = "Not taken (they break the mailbox contract, outbox/mailbox.schema.json):"

// maxSplit bounds the sub-issues of one split.
const maxSplit = 20

// parentLabel marks a sub-issue of issue id.
func parentLabel(id int64) string { return "parent:" + strconv.FormatInt(id, 10) }

// children are the open sub-issues of is: a parent waits for them.
func (l *Lead) children(ctx context.Context, is outbox.Issue) ([]int64, error) {
	list, err := l.ob.List(ctx, outbox.Query{Label: parentLabel(is.ID), State: "open"})
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(list))
	for _, c := range list {
		out = append(out, c.ID)
	}
	return out, nil
}

func (l *Lead) onAddressed(ctx context.Context, ev outbox.Event) (*effect, error) {
	is, err := l.ob.Issue(ctx, ev.Issue)
	if err != nil {
		return nil, err
	}
	if !l.claimable(is, mentions(is.Body, l.o.Role)) {
		return nil, nil
	}
	return &effect{
		change: outbox.Change{Trigger: "claim:" + strconv.FormatInt(is.ID, 10), Ops: l.claimOps(is, ev.ID)},
		after:  func() { l.enqueue(is.ID) },
	}, nil
}

// addressed reports whether issue id carries to:<role> or is assigned to
// the role, from a cache that the label and assignment events keep
// current, so that catching up on a long backlog reads each issue once,
// not once per comment.
func (l *Lead) addressed(ctx context.Context, id int64) (bool, error) {
	if v, ok := l.toMe[id]; ok {
		return v, nil
	}
	is, err := l.ob.Issue(ctx, id)
	if err != nil {
		if isNotFound(err) {
			return false, nil
		}
		return false, err
	}
	v := is.HasLabel(roster.To(l.o.Role)) || l.assignedToRole(is.Assignee)
	if len(l.toMe) >= addressedCacheSize {
		clear(l.toMe)
	}
	l.toMe[id] = v
	return v, nil
}

// addressedCacheSize bounds the addressed cache (cleared when full).
const addressedCacheSize = 1 << 16

// onComment acknowledges a comment addressed to the role, once per
// Trigger; it claims the issue if it is still unclaimed, and a DependsOn
// in the comment blocks the issue (stopping its Worker) until those close.
func (l *Lead) onComment(ctx context.Context, ev outbox.Event) (*effect, error) {
	c := outbox.Comment{ID: ev.Comment, Issue: ev.Issue, Body: ev.Body}
	mentioned := mentions(c.Body, l.o.Role)
	if !mentioned {
		addressed, err := l.addressed(ctx, ev.Issue)
		if err != nil || !addressed {
			return nil, err
		}
	}
	is, err := l.ob.Issue(ctx, ev.Issue)
	if err != nil {
		return nil, err
	}
	m := outbox.ParseMailbox(c.Body)
	trigger := m.Fields[outbox.FieldTrigger]
	if trigger == "" {
		trigger = "comment:" + strconv.FormatInt(c.ID, 10)
	}
	ack := outbox.Mailbox{Text: fmt.Sprintf("%s read comment %d.", l.actor, c.ID), Fields: map[string]string{
		outbox.FieldTrigger: trigger, outbox.FieldReadUpTo: strconv.FormatInt(ev.ID, 10)}}
	if said := m.NotTaken(); said != "" {
		// Fields that break the contract are not acted on, and the
		// writer is told rather than left to wonder.
		ack.Text += "\n" + notTaken + "\n" + said
	}
	eff := &effect{change: outbox.Change{Trigger: trigger}}
	var afters []func()
	switch {
	case l.claimable(is, mentioned || mentions(is.Body, l.o.Role)):
		eff.change.Ops = append(eff.change.Ops, l.claimOps(is, ev.ID)...)
		afters = append(afters, func() { l.enqueue(is.ID) })
	case wantsRetry(m.Text) && l.retryable(is):
		// A failed (or held for review) issue stays claimed, so a person
		// can send it back to a Worker; nothing waits for a restart.
		eff.change.Ops = append(eff.change.Ops,
			outbox.Op{Kind: outbox.OpUnlabel, Issue: is.ID, Labels: []string{roster.LabelFailed, roster.LabelReview}},
			outbox.Op{Kind: outbox.OpLabel, Issue: is.ID, Labels: []string{roster.LabelQueued}})
		ack.Fields[outbox.FieldState] = roster.LabelQueued
		afters = append(afters, func() { l.enqueue(is.ID) })
	}
	if asked := outbox.IssueRefs(m.Fields[outbox.FieldDependsOn]); len(asked) > 0 && is.Assignee == l.actor && !is.Closed {
		deps, refused := l.acceptableDeps(is.ID, asked)
		if refused {
			// An issue waiting for itself (or for an issue that waits
			// for it) would wait forever: refused, said in the ack.
			ack.Text += "\n" + fmt.Sprintf("Refused: #%d cannot wait for itself (%s).", is.ID, outbox.FormatRefs(asked))
		}
		unmet, err := l.openOf(ctx, deps)
		if err != nil {
			return nil, err
		}
		if len(unmet) > 0 {
			eff.change.Ops = append(eff.change.Ops, l.blockOps(is.ID, unmet, ev.ID)...)
			afters = append(afters, func() { l.block(is.ID, unmet) })
			ack.Fields[outbox.FieldBlockedBy] = outbox.FormatRefs(unmet)
		}
	}
	eff.change.Ops = append(eff.change.Ops, outbox.Op{Kind: outbox.OpComment, Issue: is.ID, Body: ack.Render()})
	eff.after = func() {
		for _, f := range afters {
			f()
		}
	}
	return eff, nil
}

// wantsRetry: a comment whose text starts with roster.RetryCommand.
func wantsRetry(text string) bool {
	f := strings.Fields(text)
	return len(f) > 0 && f[0] == roster.RetryCommand
}

// retryable: the Lead's own open issue that failed or waits for review.
func (l *Lead) retryable(is outbox.Issue) bool {
	return !is.Closed && is.Assignee == l.actor && (is.HasLabel(roster.LabelFailed) || is.HasLabel(roster.LabelReview))
}

// onClosed unblocks the issues that waited only for what just closed.
func (l *Lead) onClosed(ctx context.Context, ev outbox.Event) (*effect, error) {
	l.mu.Lock()
	var waiting []int64
	for id := range l.blocked {
		waiting = append(waiting, id)
	}
	l.mu.Unlock()
	if len(waiting) == 0 {
		return nil, nil
	}
	sortIDs(waiting)
	var ops []outbox.Op
	var freed []int64
	for _, id := range waiting {
		is, err := l.ob.Issue(ctx, id)
		if err != nil {
			return nil, err
		}
		if is.Closed {
			continue
		}
		l.mu.Lock()
		deps := append([]int64(nil), l.blocked[id]...)
		l.mu.Unlock()
		implicit, err := l.implicitDeps(ctx, is)
		if err != nil {
			return nil, err
		}
		unmet, err := l.openOf(ctx, append(deps, implicit...))
		if err != nil {
			return nil, err
		}
		if len(unmet) > 0 {
			continue
		}
		m := outbox.Mailbox{Text: fmt.Sprintf("Unblocked: what #%d waited for has closed; it is queued again.", id), Fields: map[string]string{
			outbox.FieldState: roster.LabelQueued, outbox.FieldReadUpTo: strconv.FormatInt(ev.ID, 10)}}
		ops = append(ops,
			outbox.Op{Kind: outbox.OpUnlabel, Issue: id, Labels: []string{roster.LabelBlocked}},
			outbox.Op{Kind: outbox.OpLabel, Issue: id, Labels: []string{roster.LabelQueued}},
			outbox.Op{Kind: outbox.OpComment, Issue: id, Body: m.Render()})
		freed = append(freed, id)
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return &effect{change: outbox.Change{Ops: ops}, after: func() {
		for _, id := range freed {
			l.unblock(id)
		}
	}}, nil
}

// blockOps mark an issue blocked by unmet, in the mailbox template.
func (l *Lead) blockOps(id int64, unmet []int64, readUpTo int64) []outbox.Op {
	f := map[string]string{outbox.FieldState: roster.LabelBlocked, outbox.FieldBlockedBy: outbox.FormatRefs(unmet), outbox.FieldDependsOn: outbox.FormatRefs(unmet)}
	if readUpTo > 0 {
		f[outbox.FieldReadUpTo] = strconv.FormatInt(readUpTo, 10)
	}
	m := outbox.Mailbox{Text: fmt.Sprintf("Blocked: #%d waits for %s; its Worker is stopped until they close.", id, outbox.FormatRefs(unmet)), Fields: f}
	return []outbox.Op{
		{Kind: outbox.OpUnlabel, Issue: id, Labels: []string{roster.LabelQueued, roster.LabelRunning}},
		{Kind: outbox.OpLabel, Issue: id, Labels: []string{roster.LabelBlocked}},
		{Kind: outbox.OpComment, Issue: id, Body: m.Render()},
	}
}

// openOf returns the ids of ids that are open issues (unknown ids count
// as met: a typo must not block forever).
func (l *Lead) openOf(ctx context.Context, ids []int64) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		is, err := l.ob.Issue(ctx, id)
		if err != nil {
			if isNotFound(err) {
				continue
			}
			return nil, err
		}
		if !is.Closed {
			out = append(out, id)
		}
	}
	sortIDs(out)
	return out, nil
}

// implicitDeps are the open sub-issues of is, and the open issues of the
// roles this role depends on (workflow.toml depends_on) filed before is.
func (l *Lead) implicitDeps(ctx context.Context, is outbox.Issue) ([]int64, error) {
	out, err := l.children(ctx, is)
	if err != nil {
		return nil, err
	}
	out = withoutID(out, is.ID) // a parent:<own id> label must not block it forever
	for _, d := range l.role.DependsOn {
		list, err := l.ob.List(ctx, outbox.Query{Label: roster.To(d), State: "open"})
		if err != nil {
			return nil, err
		}
		for _, x := range list {
			if x.ID < is.ID {
				out = append(out, x.ID)
			}
		}
	}
	return out, nil
}

// explicitDeps are the DependsOn of the issue's body, without the issue
// itself (which would block it forever).
func explicitDeps(is outbox.Issue) []int64 {
	return withoutID(outbox.IssueRefs(outbox.ParseMailbox(is.Body).Fields[outbox.FieldDependsOn]), is.ID)
}

// withoutID is ids without id.
func withoutID(ids []int64, id int64) []int64 {
	out := ids[:0:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// acceptableDeps are the blockers of issue id that may block it: not id
// itself, and not an issue that this Lead holds blocked by id (a loop of
// two would wait forever as surely). refused reports that some were
// dropped.
func (l *Lead) acceptableDeps(id int64, deps []int64) (ok []int64, refused bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range deps {
		if d == id || l.waitsFor(d, id) {
			refused = true
			continue
		}
		ok = append(ok, d)
	}
	return ok, refused
}

// waitsFor reports whether issue a is held blocked by b, directly or
// through other blocked issues (each visited once; l.mu is held).
func (l *Lead) waitsFor(a, b int64) bool {
	seen := map[int64]bool{a: true}
	next := []int64{a}
	for len(next) > 0 {
		x := next[len(next)-1]
		next = next[:len(next)-1]
		for _, d := range l.blocked[x] {
			if d == b {
				return true
			}
			if !seen[d] {
				seen[d] = true
				next = append(next, d)
			}
		}
	}
	return false
}
