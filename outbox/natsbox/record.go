package natsbox

import (
	"encoding/json"
	"fmt"

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

// split cuts r into records whose JSON is at most max bytes each, in the
// order the state applies them (issues opened, then comments, events and
// touched issues), so that each part names only what a part before it or
// the outbox already has. A Lead catching up answers up to hundreds of
// events in one change, Worker evidence included, which one message of
// the hub's maximum payload (1 MB by default) may not hold; the parts go
// into one atomic batch, so no reader sees some without the others. An
// item larger than max on its own is ErrInvalid.
func (r record) split(max int) ([][]byte, error) {
	whole, err := json.Marshal(r)
	if err != nil || len(whole) <= max {
		return [][]byte{whole}, err
	}
	var out [][]byte
	cur := record{Time: r.Time}
	flush := func() error {
		if cur.empty() {
			return nil
		}
		data, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		out = append(out, data)
		cur = record{Time: r.Time}
		return nil
	}
	// size bounds cur's JSON from above: the keys and braces, then each
	// item and its comma.
	size := 64
	add := func(item any, put func()) error {
		data, err := json.Marshal(item)
		if err != nil {
			return err
		}
		if 64+len(data)+1 > max {
			return fmt.Errorf("%w: one item of %d bytes is more than the hub takes in a message (%d)", outbox.ErrInvalid, len(data), max)
		}
		if size+len(data)+1 > max {
			if err := flush(); err != nil {
				return err
			}
			size = 64
		}
		put()
		size += len(data) + 1
		return nil
	}
	for _, o := range r.Opened {
		if err := add(o, func() { cur.Opened = append(cur.Opened, o) }); err != nil {
			return nil, err
		}
	}
	for _, c := range r.Comments {
		if err := add(c, func() { cur.Comments = append(cur.Comments, c) }); err != nil {
			return nil, err
		}
	}
	for _, e := range r.Events {
		if err := add(e, func() { cur.Events = append(cur.Events, e) }); err != nil {
			return nil, err
		}
	}
	for _, id := range r.Touched {
		if err := add(id, func() { cur.Touched = append(cur.Touched, id) }); err != nil {
			return nil, err
		}
	}
	return out, flush()
}
