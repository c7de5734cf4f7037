package roster

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/daokit/daokit/outbox"
)

// The states of an issue as the issues views show it: the Lead's state
// label, or where an issue no Lead has labelled stands.
const (
	IssueQueued  = "queued"
	IssueRunning = "running"
	IssueBlocked = "blocked"
	IssueReview  = "review"
	IssueFailed  = "failed"
	IssueDone    = "done"
	// IssueOpen: open, and no Lead has taken it (yet).
	IssueOpen = "open"
	// IssueClosed: closed without a Lead's done (closed by a person).
	IssueClosed = "closed"
)

// IssueStates lists the states in the order the views group them: what
// needs a person first, what is finished last.
func IssueStates() []string {
	return []string{IssueBlocked, IssueReview, IssueFailed, IssueRunning, IssueQueued, IssueOpen, IssueDone, IssueClosed}
}

// IssueView is one issue as `daokit status --json` ("issues") and the
// window's issues view show it.
type IssueView struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
	// Role is the role the issue is addressed to (its to: label), else
	// the role of the Lead it is assigned to; "" when neither.
	Role     string `json:"role"`
	State    string `json:"state"`
	Assignee string `json:"assignee,omitempty"`
	// BlockedBy are the issues a blocked issue waits for: what its Lead
	// reports in its status file, else the BlockedBy of the Lead's newest
	// comment that names some (a Lead that is down still says why),
	// without those closed since.
	BlockedBy []int64  `json:"blocked_by,omitempty"`
	Labels    []string `json:"labels"`
}

// IssueLimit bounds the issues the views read: the newest ones.
const IssueLimit = 500

// Issues reads the outbox's issues (the newest IssueLimit), with the
// role and state of each and what blocks the blocked ones; roles are the
// Views of the same moment (their status files' blockers win). Sorted by
// role, then state (IssueStates' order), then id.
func Issues(ctx context.Context, ob outbox.Backend, roles []RoleView) ([]IssueView, error) {
	all, err := ob.List(ctx, outbox.Query{})
	if err != nil {
		return nil, err
	}
	if len(all) > IssueLimit {
		all = all[len(all)-IssueLimit:]
	}
	known := map[string][]int64{}
	for _, v := range roles {
		for id, deps := range v.Blocked {
			known[id] = deps
		}
	}
	out := make([]IssueView, 0, len(all))
	for _, is := range all {
		v := IssueView{ID: is.ID, Title: is.Title, Role: RoleOf(is), State: StateOf(is), Assignee: is.Assignee, Labels: is.Labels}
		if v.Labels == nil {
			v.Labels = []string{}
		}
		if v.State == IssueBlocked {
			if deps, ok := known["#"+strconv.FormatInt(is.ID, 10)]; ok {
				v.BlockedBy = deps
			} else if v.BlockedBy, err = blockersOf(ctx, ob, is.ID); err != nil {
				return nil, err
			}
		}
		out = append(out, v)
	}
	// A blocker that has closed since blocks nothing: the view says what
	// blocks an issue now (all of them while the Lead has yet to see the
	// last one close).
	closed := map[int64]bool{}
	for _, is := range all {
		closed[is.ID] = is.Closed
	}
	for i := range out {
		if open := slices.DeleteFunc(slices.Clone(out[i].BlockedBy), func(id int64) bool { return closed[id] }); len(open) > 0 {
			out[i].BlockedBy = open
		}
	}
	order := map[string]int{}
	for i, s := range IssueStates() {
		order[s] = i
	}
	slices.SortStableFunc(out, func(a, b IssueView) int {
		if c := strings.Compare(a.Role, b.Role); c != 0 {
			return c
		}
		if c := order[a.State] - order[b.State]; c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	return out, nil
}

// RoleOf is the role an issue is addressed to (its to: label), else the
// role of the Lead it is assigned to, else "".
func RoleOf(is outbox.Issue) string {
	if l := is.LabelWithPrefix("to:"); l != "" {
		return l[len("to:"):]
	}
	if IsLead(is.Assignee) {
		return is.Assignee[len("lead:"):]
	}
	return ""
}

// StateOf is an issue's state for the views.
func StateOf(is outbox.Issue) string {
	switch {
	case is.HasLabel(LabelDone):
		return IssueDone
	case is.Closed:
		return IssueClosed
	case is.HasLabel(LabelBlocked):
		return IssueBlocked
	case is.HasLabel(LabelReview):
		return IssueReview
	case is.HasLabel(LabelFailed):
		return IssueFailed
	case is.HasLabel(LabelRunning):
		return IssueRunning
	case is.HasLabel(LabelQueued):
		return IssueQueued
	}
	return IssueOpen
}

// blockersOf reads BlockedBy from the newest Lead comment on id that
// has one.
func blockersOf(ctx context.Context, ob outbox.Backend, id int64) ([]int64, error) {
	cs, err := ob.Comments(ctx, id)
	if err != nil {
		return nil, err
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if !IsLead(cs[i].Author) {
			continue
		}
		if b := outbox.ParseMailbox(cs[i].Body).Fields[outbox.FieldBlockedBy]; b != "" {
			return outbox.IssueRefs(b), nil
		}
	}
	return nil, nil
}
