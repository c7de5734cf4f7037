package ledger

import (
	"os"
	"path/filepath"
	"strings"
)

// FindingKind is how `daokit check` weighs one finding in a document.
type FindingKind int

// Finding kinds.
const (
	// FindingInvalid fails the check: the document cannot be read, or
	// breaks its contract in a way daokit would not write.
	FindingInvalid FindingKind = iota
	// FindingHeartbeatNotString fails the check with the Python tool's
	// own code: heartbeat_status.last_heartbeat_at is not a string.
	FindingHeartbeatNotString
	// FindingKept is a note: a field outside the contract, or a
	// role_lifecycle value of the Python tool's own shape (an empty
	// string its handoff --apply writes, an object its LLM mode stores).
	// Reading keeps them as written.
	FindingKept
)

// Finding is one thing Check found in a state document.
type Finding struct {
	Kind FindingKind
	// Path is the document's path.
	Path string
	// Err is the document's load error (FindingInvalid from loading).
	Err error
	// Problem is the contract problem, nil for a load error.
	Problem *ValidationError
}

// CheckReport is what Check found in a root's ledger, for the command to
// word: it judges, the command prints.
type CheckReport struct {
	// Snapshot is the ledger as it was read.
	Snapshot Snapshot
	// Findings are the documents' problems and notes, pipeline first,
	// then heartbeat, then leases.
	Findings []Finding
	// HeartbeatTime is last_heartbeat_at when it is set but not a time
	// ("" when it is fine).
	HeartbeatTime string
	// EventsErr is why the events could not be read.
	EventsErr error
	// EventsRead is how many of the newest events were validated;
	// EventsSkipped of them were unreadable lines and EventsOutside
	// outside the contract.
	EventsRead, EventsSkipped, EventsOutside int
	// Journal reports a commit journal in state/: a commit under way or
	// cut short, which the next writer finishes.
	Journal bool
}

// Failed reports a finding that fails the check.
func (r *CheckReport) Failed() bool {
	for _, f := range r.Findings {
		if f.Kind != FindingKept {
			return true
		}
	}
	return false
}

// CheckLayout returns the first contract file of l's state folder that is
// missing or not a regular file (a link is not a ledger file), relative
// to the root, with notAFile telling which; "" when all are there.
func CheckLayout(l Layout) (rel string, notAFile bool) {
	for _, name := range StateFiles() {
		st, err := os.Lstat(l.Path(name))
		switch {
		case err != nil:
			return filepath.Join(StateDir, name), false
		case !st.Mode().IsRegular():
			return filepath.Join(StateDir, name), true
		}
	}
	return "", false
}

// Check reads the ledger at l as `daokit check` judges it: every load and
// contract problem of the three state documents (fields outside the
// contract are kept, not failures: the Python tool writes some), the
// heartbeat's time, the newest eventLines events and a commit journal
// left behind. It judges no liveness: that is liveness.JudgeLedger's,
// on the snapshot it returns.
func Check(l Layout, eventLines int) CheckReport {
	r := CheckReport{Snapshot: LoadSnapshot(l.Root)}
	s := &r.Snapshot
	r.weigh(l.Pipeline(), s.Pipeline.Err, s.Pipeline.Schema, true, false)
	r.weigh(l.Heartbeat(), s.Heartbeat.Err, s.Heartbeat.Schema, false, true)
	r.weigh(l.Leases(), s.Leases.Err, s.Leases.Schema, false, false)
	if at := s.Heartbeat.Value.LastHeartbeatAt; at != "" {
		if _, err := ParseTime(at); err != nil {
			r.HeartbeatTime = at
		}
	}
	tail, err := TailEvents(l.Events(), eventLines)
	if err != nil {
		r.EventsErr = err
	} else {
		r.EventsRead, r.EventsSkipped = eventLines, tail.Skipped
		for i := range tail.Events {
			if tail.Events[i].Validate() != nil {
				r.EventsOutside++
			}
		}
	}
	if _, err := os.Lstat(l.Path(JournalFile)); err == nil {
		r.Journal = true
	}
	return r
}

// weigh adds the findings of one document: its load error, else each
// contract problem weighed as Finding's kinds say.
func (r *CheckReport) weigh(path string, loadErr, schemaErr error, pipeline, heartbeat bool) {
	if ps := Problems(loadErr); heartbeat && len(ps) == 1 && ps[0].Path == "$.last_heartbeat_at" {
		r.Findings = append(r.Findings, Finding{Kind: FindingHeartbeatNotString, Path: path, Problem: ps[0]})
		return
	}
	if loadErr != nil {
		r.Findings = append(r.Findings, Finding{Kind: FindingInvalid, Path: path, Err: loadErr})
		return
	}
	for _, p := range Problems(schemaErr) {
		if heartbeat && p.Path == "$.last_heartbeat_at" {
			continue // judged as HeartbeatTime, with the Python tool's code
		}
		lifecycle := pipeline && strings.HasPrefix(p.Path, "$.role_lifecycle.")
		kind := FindingInvalid
		if p.Code == ProblemUnknownField || (lifecycle && (p.Code == ProblemEmpty || p.Code == ProblemType)) {
			kind = FindingKept
		}
		r.Findings = append(r.Findings, Finding{Kind: kind, Path: path, Problem: p})
	}
}
