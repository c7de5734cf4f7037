package conversation

import "time"

// MaxSaved bounds the entries the window saves for its next start.
const MaxSaved = 200

// Saved is one entry as the window keeps it between runs (see package
// memory): what was said, by catalog id where the window said it, so
// that it is redrawn in the language of the day.
type Saved struct {
	Kind     Kind      `json:"kind"`
	At       time.Time `json:"at"`
	Text     string    `json:"text,omitempty"`
	ID       string    `json:"id,omitempty"`
	Args     []string  `json:"args,omitempty"`
	Labeled  []string  `json:"labeled,omitempty"`
	Delivery Delivery  `json:"delivery,omitempty"`
	Note     string    `json:"note,omitempty"`
	// Event is the ledger event the entry came from, so that the same
	// event read again after a restart makes no second entry.
	Event string `json:"event,omitempty"`
	// Task is the task the entry is about ("" for the window's own).
	Task string `json:"task,omitempty"`
}

// RestoreMsg tells the pane the entries of the window's last run, to go
// before anything recorded since it opened.
type RestoreMsg struct {
	Entries []Saved
}

// Saved returns the newest MaxSaved entries for saving.
func (m *Model) Saved() []Saved {
	from := max(len(m.entries)-MaxSaved, 0)
	out := make([]Saved, 0, len(m.entries)-from)
	for _, e := range m.entries[from:] {
		d := e.delivery
		if e.kind == KindUser && d == Sending {
			// Its answer will never come to this window.
			d = Unknown
		}
		out = append(out, Saved{Kind: e.kind, At: e.at, Text: e.text, ID: e.id, Args: e.args,
			Labeled: e.labeled, Delivery: d, Note: e.note, Event: e.event, Task: e.task})
	}
	return out
}

// Changes counts the changes to the entries; the root saves when it moved.
func (m *Model) Changes() uint64 { return m.changes }

// restore puts saved entries before the current ones.
func (m *Model) restore(saved []Saved) {
	old := make([]*entry, 0, len(saved)+len(m.entries))
	for _, s := range saved {
		if s.Kind < KindUser || s.Kind > KindError {
			continue
		}
		old = append(old, &entry{kind: s.Kind, at: s.At, text: s.Text, id: s.ID, args: s.Args,
			labeled: s.Labeled, delivery: s.Delivery, note: s.Note, event: s.Event, task: s.Task})
		m.seenEvent(s.Event)
	}
	m.entries = append(old, m.entries...)
	if len(m.entries) > MaxEntries {
		m.entries = m.entries[len(m.entries)-MaxEntries:]
	}
	m.Memo.Invalidate()
}
