package natsbox

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/daokit/daokit/outbox"
)

// state is the outbox as read from the stream up to seq.
type state struct {
	seq      uint64
	issues   map[int64]*outbox.Issue
	comments map[int64]outbox.Comment
	byIssue  map[int64][]int64
	events   []outbox.Event
	cursors  map[string]int64
	triggers map[string]map[string]bool
	// The newest ids given, so the next change numbers on from them.
	lastIssue, lastComment, lastEvent int64
}

func newState() *state {
	return &state{issues: map[int64]*outbox.Issue{}, comments: map[int64]outbox.Comment{}, byIssue: map[int64][]int64{},
		cursors: map[string]int64{}, triggers: map[string]map[string]bool{}}
}

// kind of a message, from the last token but one of its subject
// (daokit.<root>.outbox.<kind>[.<hash>]).
const (
	kindChange  = "change"
	kindTrigger = "trigger"
	kindCursor  = "cursor"
)

func subjectKind(subject string) string {
	parts := strings.Split(subject, ".")
	if len(parts) < 4 {
		return ""
	}
	return parts[3]
}

// add applies one stored message. A message it cannot read is skipped:
// it was not written by this backend, and the outbox it holds stays
// readable.
func (s *state) add(seq uint64, subject string, data []byte) {
	s.seq = seq
	switch subjectKind(subject) {
	case kindChange:
		var r record
		if json.Unmarshal(data, &r) == nil {
			s.addRecord(r)
		}
	case kindTrigger:
		var k triggerKey
		if json.Unmarshal(data, &k) == nil {
			if s.triggers[k.Reader] == nil {
				s.triggers[k.Reader] = map[string]bool{}
			}
			s.triggers[k.Reader][k.Key] = true
		}
	case kindCursor:
		var c cursorMove
		if json.Unmarshal(data, &c) == nil {
			s.moveCursor(c)
		}
	}
}

func (s *state) moveCursor(c cursorMove) {
	if c.UpTo > s.cursors[c.Reader] {
		s.cursors[c.Reader] = c.UpTo
	}
}

func (s *state) addRecord(r record) {
	at := time.Unix(0, r.Time).UTC()
	for _, o := range r.Opened {
		s.issues[o.ID] = &outbox.Issue{ID: o.ID, Title: o.Title, Body: o.Body, Author: o.Author, Assignee: o.Assignee,
			Labels: slices.Clone(o.Labels), Created: at, Updated: at}
		s.lastIssue = max(s.lastIssue, o.ID)
	}
	for _, c := range r.Comments {
		c.Created = at
		s.comments[c.ID] = c
		s.byIssue[c.Issue] = append(s.byIssue[c.Issue], c.ID)
		s.lastComment = max(s.lastComment, c.ID)
	}
	for _, e := range r.Events {
		e.Time = at
		if is := s.issues[e.Issue]; is != nil {
			mutate(is, e)
		}
		s.events = append(s.events, e)
		s.lastEvent = max(s.lastEvent, e.ID)
	}
	for _, id := range r.Touched {
		if is := s.issues[id]; is != nil {
			is.Updated = at
		}
	}
	if r.Cursor != nil {
		s.moveCursor(*r.Cursor)
	}
}

// mutate is what event e does to its issue.
func mutate(is *outbox.Issue, e outbox.Event) {
	switch e.Kind {
	case outbox.EventLabeled:
		is.Labels = addLabel(is.Labels, e.Value)
	case outbox.EventUnlabeled:
		is.Labels = slices.DeleteFunc(is.Labels, func(l string) bool { return l == e.Value })
	case outbox.EventAssigned:
		is.Assignee = e.Value
	case outbox.EventClosed:
		is.Closed = true
	case outbox.EventReopened:
		is.Closed = false
	}
}

// addLabel keeps labels sorted and unique.
func addLabel(labels []string, l string) []string {
	i, found := slices.BinarySearch(labels, l)
	if found {
		return labels
	}
	return slices.Insert(labels, i, l)
}

// copyIssue is an issue a caller may keep: its labels are its own.
func copyIssue(is *outbox.Issue) outbox.Issue {
	c := *is
	c.Labels = slices.Clone(is.Labels)
	return c
}

// eventsAfter returns up to limit events with id > after.
func (s *state) eventsAfter(after int64, limit int) []outbox.Event {
	i := sort.Search(len(s.events), func(i int) bool { return s.events[i].ID > after })
	end := min(len(s.events), i+limit)
	return slices.Clone(s.events[i:end])
}
