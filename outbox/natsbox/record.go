package natsbox

import (
	"github.com/daokit/daokit/outbox"
)

// record is the change message of one Apply: what it did, with every id
// assigned, so that replaying the stream needs no decisions.
type record struct {
	// Time is when the change was made, in Unix nanoseconds.
	Time     int64            `json:"t"`
	Opened   []opened         `json:"opened,omitempty"`
	Comments []outbox.Comment `json:"comments,omitempty"`
	Events   []outbox.Event   `json:"events,omitempty"`
	// Touched are the issues whose updated time becomes Time (every
	// issue an operation named, as the SQLite backend does).
	Touched []int64 `json:"touched,omitempty"`
	// Cursor is the reader's cursor move of a change that records no
	// trigger: such a change is this one message (see Store.try).
	Cursor *cursorMove `json:"cursor,omitempty"`
}

func (r *record) empty() bool {
	return len(r.Opened) == 0 && len(r.Comments) == 0 && len(r.Events) == 0 && len(r.Touched) == 0 && r.Cursor == nil
}

// opened is one issue an OpOpen made.
type opened struct {
	ID       int64    `json:"id"`
	Title    string   `json:"title"`
	Body     string   `json:"body"`
	Author   string   `json:"author"`
	Assignee string   `json:"assignee,omitempty"`
	Labels   []string `json:"labels,omitempty"`
}

// triggerKey is the message recording one trigger of a reader.
type triggerKey struct {
	Reader string `json:"reader"`
	Key    string `json:"key"`
	Event  int64  `json:"event"`
}

// cursorMove is the message moving a reader's cursor (never back).
type cursorMove struct {
	Reader string `json:"reader"`
	UpTo   int64  `json:"upto"`
}
