package dashboard

import (
	"slices"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
)

// maxRuns bounds the tasks-and-runs table: the runs seen most recently.
const maxRuns = 50

// State is what the page shows at one moment: the documents, the newest
// events and the runs they belong to. A State is never changed once it
// is handed out; each ledger update makes a new one.
type State struct {
	// Version counts the updates folded in; the page's stream sends it
	// as the event id.
	Version uint64
	// Snapshot holds the three documents (each with its own error).
	Snapshot ledger.Snapshot
	// Events are the newest events, oldest first, at most the tail.
	Events []Event
	// Runs are the tasks and runs the events seen so far name, the most
	// recent first.
	Runs []Run
	// EventsErr says why events.jsonl could not be read ("" if it was).
	EventsErr string
	// Skipped counts lines of events.jsonl that were not events.
	Skipped int
}

// Event is one event with its payload as the table shows it, worked out
// once when the event arrives rather than at every render (a payload of
// megabytes would otherwise be encoded again ten times a second).
type Event struct {
	ledger.Event
	// PayloadText is the payload as compact JSON, cut at payloadCap.
	PayloadText string
}

// Run is one task's run as the events tell it.
type Run struct {
	TaskID, RunID string
	// Events counts the events of the run the page has seen.
	Events int
	// LastType and LastAt are the newest event's type and timestamp.
	LastType, LastAt string
	// LastStep is the newest event's step ("" for a global event).
	LastStep string
	// Errors counts the run's events of severity ERROR.
	Errors int
}

// fold returns the state after u, leaving s as it was.
func (s *State) fold(u live.LedgerUpdate, tail int) *State {
	n := &State{Version: s.Version + 1, Snapshot: s.Snapshot, Events: s.Events, Runs: s.Runs, Skipped: s.Skipped + u.Skipped}
	if u.Snapshot != nil {
		n.Snapshot = *u.Snapshot
	}
	if u.Reset {
		// The events shown so far belong to a file that is gone.
		n.Events, n.Runs = nil, nil
	}
	if u.EventsErr != nil {
		n.EventsErr = u.EventsErr.Error()
	}
	if len(u.Events) > 0 {
		fresh := u.Events
		if cut := len(fresh) - tail; cut > 0 {
			fresh = fresh[cut:] // never shown: not worth a summary
		}
		events := slices.Clip(n.Events)
		for _, e := range fresh {
			events = append(events, Event{Event: e, PayloadText: payloadText(e.Payload)})
		}
		if cut := len(events) - tail; cut > 0 {
			events = events[cut:]
		}
		n.Events = events
		n.Runs = foldRuns(n.Runs, u.Events)
	}
	return n
}

// foldRuns counts events into the runs they name, the run of the newest
// event first.
func foldRuns(runs []Run, events []ledger.Event) []Run {
	out := slices.Clone(runs)
	for _, e := range events {
		if e.TaskID == "" && e.RunID == "" {
			continue
		}
		i := slices.IndexFunc(out, func(r Run) bool { return r.TaskID == e.TaskID && r.RunID == e.RunID })
		r := Run{TaskID: e.TaskID, RunID: e.RunID}
		if i >= 0 {
			r = out[i]
			out = slices.Delete(out, i, i+1)
		}
		r.Events++
		r.LastType, r.LastAt, r.LastStep = e.EventType, e.Timestamp, e.StepID
		if e.Severity == ledger.SeverityError {
			r.Errors++
		}
		out = slices.Insert(out, 0, r)
	}
	if len(out) > maxRuns {
		out = out[:maxRuns]
	}
	return out
}
