package compact

import "fmt"

// Reason says why compaction took an entry out of a list.
type Reason int

// Reasons, in report order. The first five drop an entry; the last two
// merge it into an entry that stays.
const (
	// Finished means the entry logs finished work (status completed,
	// done, success, accepted or resolved).
	Finished Reason = iota
	// Stale means the entry is marked stale, or is about another task or
	// run than the one the route summary names.
	Stale
	// Resolved means the failure the entry records is resolved.
	Resolved
	// Noise means the entry is an unstructured dump (HTML page, traceback,
	// raw error body) or an evidence path pointing at one (stdout, stderr,
	// traceback).
	Noise
	// Invalid means the entry has the wrong JSON type or is blank, or a
	// list member is not a list.
	Invalid
	// Duplicate means the entry repeats the event (event_type, dedup_key,
	// step_id) or the normalized content of an earlier entry, which stays.
	Duplicate
	// Repeated means a later report of the same status for the same
	// subject supersedes the entry, a status report.
	Repeated
	numReasons
)

var reasonNames = [numReasons]string{"finished", "stale", "resolved", "noise", "invalid", "duplicate", "repeated"}

// String returns the reason's name as reports print it.
func (r Reason) String() string {
	if r < 0 || r >= numReasons {
		return fmt.Sprintf("Reason(%d)", int(r))
	}
	return reasonNames[r]
}

// MarshalText writes the reason's name.
func (r Reason) MarshalText() ([]byte, error) {
	if r < 0 || r >= numReasons {
		return nil, fmt.Errorf("marshal reason: unknown reason %d", int(r))
	}
	return []byte(reasonNames[r]), nil
}

// UnmarshalText reads a reason's name.
func (r *Reason) UnmarshalText(text []byte) error {
	for i, n := range reasonNames {
		if n == string(text) {
			*r = Reason(i)
			return nil
		}
	}
	return fmt.Errorf("unmarshal reason: unknown reason %q", text)
}

// Merged reports whether the reason merges an entry rather than drops it.
func (r Reason) Merged() bool { return r == Duplicate || r == Repeated }

// Report says what one compaction kept, dropped and merged. Sizes are those
// of the compact JSON of the context (Context.Size).
type Report struct {
	// Lists has one row per List, in processing order, present or not.
	Lists []ListReport `json:"lists"`
	// Relay is what happened to relay_context.
	Relay         RelayReport `json:"relay_context"`
	EntriesBefore int         `json:"entries_before"`
	EntriesAfter  int         `json:"entries_after"`
	BytesBefore   int         `json:"bytes_before"`
	BytesAfter    int         `json:"bytes_after"`
}

// ListReport counts one list. Before is always Kept + Dropped + Merged.
type ListReport struct {
	List    List          `json:"list"`
	Before  int           `json:"before"`
	Kept    int           `json:"kept"`
	Dropped int           `json:"dropped"`
	Merged  int           `json:"merged"`
	Reasons []ReasonCount `json:"reasons"`
}

// ReasonCount is how many entries of a list left for one reason.
type ReasonCount struct {
	Reason Reason `json:"reason"`
	Count  int    `json:"count"`
}

// RelayReport lists the changes to relay_context.
type RelayReport struct {
	// Filled names the keep-set fields taken from the ledger because the
	// context lacked them, e.g. "goal" or "controller_route_summary.run_id".
	Filled []string `json:"filled"`
	// Dropped names the relay_context members that left: those outside
	// the keep set, and keep-set fields of the wrong type or blank.
	Dropped []string `json:"dropped"`
}

// Changed reports whether the compaction removed or filled anything.
func (r Report) Changed() bool {
	if len(r.Relay.Filled) > 0 || len(r.Relay.Dropped) > 0 {
		return true
	}
	for _, l := range r.Lists {
		if l.Dropped > 0 || l.Merged > 0 {
			return true
		}
	}
	return false
}

// Total sums the rows of Lists.
func (r Report) Total() ListReport {
	var t ListReport
	var by [numReasons]int
	for _, l := range r.Lists {
		t.Before += l.Before
		t.Kept += l.Kept
		t.Dropped += l.Dropped
		t.Merged += l.Merged
		for _, rc := range l.Reasons {
			if rc.Reason >= 0 && rc.Reason < numReasons {
				by[rc.Reason] += rc.Count
			}
		}
	}
	t.Reasons = reasonCounts(&by)
	return t
}

// tally counts one list while it is compacted.
type tally struct {
	before, kept int
	by           [numReasons]int
}

func (t *tally) row(l List) ListReport {
	row := ListReport{List: l, Before: t.before, Kept: t.kept, Reasons: reasonCounts(&t.by)}
	for r, n := range t.by {
		if Reason(r).Merged() {
			row.Merged += n
		} else {
			row.Dropped += n
		}
	}
	return row
}

func reasonCounts(by *[numReasons]int) []ReasonCount {
	out := []ReasonCount{}
	for r, n := range by {
		if n > 0 {
			out = append(out, ReasonCount{Reason: Reason(r), Count: n})
		}
	}
	return out
}
