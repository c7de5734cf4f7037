package outbox

import (
	"context"
	"errors"
	"time"
)

// Issue is one unit of collaboration. Labels are kept sorted.
type Issue struct {
	ID       int64     `json:"id"`
	Title    string    `json:"title"`
	Body     string    `json:"body"`
	Author   string    `json:"author"`
	Assignee string    `json:"assignee"`
	Closed   bool      `json:"closed"`
	Labels   []string  `json:"labels"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
}

// HasLabel reports whether the issue carries label l.
func (i Issue) HasLabel(l string) bool {
	for _, x := range i.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// LabelWithPrefix returns the first label that starts with prefix ("" if none).
func (i Issue) LabelWithPrefix(prefix string) string {
	for _, x := range i.Labels {
		if len(x) >= len(prefix) && x[:len(prefix)] == prefix {
			return x
		}
	}
	return ""
}

// Comment is one comment on an issue.
type Comment struct {
	ID      int64     `json:"id"`
	Issue   int64     `json:"issue"`
	Author  string    `json:"author"`
	Body    string    `json:"body"`
	Created time.Time `json:"created"`
}

// EventKind names what an event records.
type EventKind string

// The event kinds, one per operation.
const (
	EventOpened    EventKind = "opened"
	EventCommented EventKind = "commented"
	EventLabeled   EventKind = "labeled"
	EventUnlabeled EventKind = "unlabeled"
	EventAssigned  EventKind = "assigned"
	EventClosed    EventKind = "closed"
	EventReopened  EventKind = "reopened"
)

// Event is one entry of the append-only log. IDs increase strictly in
// commit order, so "every event after my cursor" is the whole of what a
// reader has not seen.
type Event struct {
	ID      int64     `json:"id"`
	Kind    EventKind `json:"kind"`
	Issue   int64     `json:"issue"`
	Comment int64     `json:"comment,omitempty"`
	Actor   string    `json:"actor"`
	// Value is the label of labeled/unlabeled, the assignee of assigned.
	Value string `json:"value,omitempty"`
	// Body is the comment's text for commented events, so that a reader
	// catching up needs no second query per comment.
	Body string    `json:"body,omitempty"`
	Time time.Time `json:"time"`
}

// OpKind names one operation of a Change.
type OpKind string

// The operations.
const (
	OpOpen    OpKind = "open"
	OpComment OpKind = "comment"
	OpLabel   OpKind = "label"
	OpUnlabel OpKind = "unlabel"
	OpAssign  OpKind = "assign"
	OpClose   OpKind = "close"
	OpReopen  OpKind = "reopen"
)

// Op is one operation. Issue is the target; for OpOpen it is 0 and the
// new issue's id is in Result.Issues. A negative Issue -k refers to the
// k-th issue opened earlier in the same Change (1-based), so a Lead can
// open a sub-issue and comment on it in one transaction.
type Op struct {
	Kind     OpKind   `json:"kind"`
	Issue    int64    `json:"issue,omitempty"`
	Title    string   `json:"title,omitempty"`
	Body     string   `json:"body,omitempty"`
	Labels   []string `json:"labels,omitempty"`
	Assignee string   `json:"assignee,omitempty"`
	// IfAssignee, when set on an OpAssign, makes it a compare-and-swap:
	// it applies only while the issue's assignee is one of these ("" is
	// unassigned). Otherwise the rest of its part is skipped and the part
	// is lost (Result.Lost, PartLost), so that of two Leads claiming one
	// issue at once exactly one takes it. Put it first in its part: the
	// operations before it stay done.
	IfAssignee []string `json:"if_assignee,omitempty"`
}

// Change is everything one transaction does. Reader and UpTo, when set,
// move the reader's cursor to UpTo (never backwards). Trigger, when set,
// is recorded for Reader under a unique key: if it was recorded before,
// nothing of Ops happens and Result.Duplicate is true, but the cursor
// still advances (the event was seen).
type Change struct {
	Actor   string
	Ops     []Op
	Reader  string
	UpTo    int64
	Trigger string
	// Parts are further effects committed in the same transaction, each
	// deduplicated by its own Trigger: a reader catching up on a backlog
	// answers many events in one commit, and still each exactly once.
	Parts []Part
	// Limits are checked in the transaction, before anything of the
	// change is done: when one is reached, nothing happens and
	// Result.OverLimit is true. Leads of different processes share a
	// group's cap this way, with no race between the count and the start.
	Limits []Limit
	// answered goes into the marker of what the change posts on GitHub
	// or GitLab (Export: the triggers answered on the old outbox).
	answered []answered
}

// Limit caps the open issues assigned to any of Assignees that carry
// Label: the change applies only while fewer than Max do.
type Limit struct {
	Assignees []string
	Label     string
	Max       int
}

// Part is one effect of a batched Change.
type Part struct {
	Trigger string
	Ops     []Op
}

// Result is what Apply did.
type Result struct {
	// Duplicate: the Trigger had been handled already; Ops were skipped.
	Duplicate bool
	// PartDuplicate[i] is Duplicate for Parts[i].
	PartDuplicate []bool
	// Lost: an OpAssign's IfAssignee did not hold; the rest of Ops was
	// skipped (its Trigger is still recorded). PartLost[i] is Lost for
	// Parts[i].
	Lost     bool
	PartLost []bool
	// Stale: the reader's cursor was already at or past UpTo; nothing
	// was done (a replay after a crash that had in fact committed).
	Stale bool
	// OverLimit: one of the change's Limits was reached; nothing was done.
	OverLimit bool
	Issues    []int64
	Comments  []int64
	Events    []int64
}

// Query selects issues for List. Zero fields match everything.
type Query struct {
	Label    string
	Assignee string
	// State is "open", "closed" or "" for both.
	State string
	Limit int
}

// Backend is the outbox storage. Every method is safe for concurrent use
// by several processes on the same outbox.
type Backend interface {
	// Apply commits one Change atomically.
	Apply(ctx context.Context, c Change) (Result, error)
	// Events returns up to limit events with id > after, oldest first.
	Events(ctx context.Context, after int64, limit int) ([]Event, error)
	// Head is the id of the newest event (0 when empty).
	Head(ctx context.Context) (int64, error)
	// Cursor is how far reader has read (0 when never).
	Cursor(ctx context.Context, reader string) (int64, error)
	// Cursors returns every reader's cursor.
	Cursors(ctx context.Context) (map[string]int64, error)
	// Issue returns one issue with its labels.
	Issue(ctx context.Context, id int64) (Issue, error)
	// Comments returns an issue's comments, oldest first.
	Comments(ctx context.Context, issue int64) ([]Comment, error)
	// Comment returns one comment.
	Comment(ctx context.Context, id int64) (Comment, error)
	// List returns issues matching q, oldest first.
	List(ctx context.Context, q Query) ([]Issue, error)
	// Triggers counts the triggers recorded for reader.
	Triggers(ctx context.Context, reader string) (int, error)
	// Wait returns when an event newer than after exists, ctx ends, or
	// the backend's bounded wake interval passes (so a caller re-checks
	// at a bounded rate even if a notification is lost).
	Wait(ctx context.Context, after int64) error
	// Close releases the backend.
	Close() error
}

// Errors of Apply and lookups.
var (
	// ErrNotFound: no issue or comment of that id.
	ErrNotFound = errors.New("outbox: not found")
	// ErrInvalid: a Change that cannot be applied (bad op, empty title).
	ErrInvalid = errors.New("outbox: invalid change")
	// ErrReadOnly: the process may not write the outbox (a Worker).
	ErrReadOnly = errors.New("outbox: read-only for workers")
)
