// Package attention decides when the window needs its person: a run that
// ended BLOCKED or FAILED, or waits for the person, and a run that
// finished DONE after a long time. The root shows its State in the
// banner and, on each new moment, rings the bell, sets the terminal title
// and runs the configured notify command (commands.go). A cancelled run
// is not a moment: the person (or the run's owner) did it.
package attention

import (
	"time"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
)

// Need is why the window calls for its person.
type Need int

// Needs, from none to the most urgent.
const (
	None     Need = iota
	Finished      // DONE after a long run
	Failed        // the run failed; /retry or /cancel
	Blocked       // the run is blocked and waits for the person
	Review        // a step's change waits for /accept or /reject
)

// String names the need (the catalog key suffix).
func (n Need) String() string {
	switch n {
	case Finished:
		return "finished"
	case Failed:
		return "failed"
	case Blocked:
		return "blocked"
	case Review:
		return "review"
	}
	return "none"
}

// State is what the window needs its person for, and about which run.
type State struct {
	Need                  Need
	TaskID, RunID, StepID string
	Reason                string        // the run's last reason code, "" if none
	Took                  time.Duration // how long a Finished run ran
	// Cancelled says the run was cancelled on purpose: the pipeline
	// says FAILED for the contract's sake, the window says cancelled.
	Cancelled bool
}

// IsCancelled reports whether st says that run (task, run) was cancelled.
func (st State) IsCancelled(task, run string) bool {
	return st.Cancelled && st.TaskID == task && st.RunID == run
}

// StateMsg tells the panes (the banner) what the window needs.
type StateMsg struct {
	State State
}

// Config is how the window calls for attention. The zero value calls by
// banner only; DefaultConfig turns the bell and the title on.
type Config struct {
	// Bell rings the terminal bell on each new moment.
	Bell bool
	// Title sets the terminal title while the person is needed.
	Title bool
	// Notify is a command run on each new moment ({message}, {task},
	// {run}, {need} and {root} are replaced); empty runs none.
	Notify []string
	// LongRun is how long a run must have taken for its DONE to call
	// for attention.
	LongRun time.Duration
	// Desktop sends a notification that reaches the person off the
	// terminal on each new moment: OSC 9 and OSC 777 (terminals that show
	// them as desktop notifications, and ignore the one they lack), and
	// NotifySend when it is set and Notify is empty.
	Desktop bool
	// NotifySend is the path of notify-send, found on PATH when the
	// window starts with a desktop session; "" runs none.
	NotifySend string
	// Tmux wraps the terminal notifications for tmux's passthrough
	// (tmux drops them unless allow-passthrough is on).
	Tmux bool
}

// DefaultLongRun is how long a run takes before its end is worth a bell.
const DefaultLongRun = 2 * time.Minute

// DefaultConfig is attention on: banner, bell, title and terminal
// notifications, no command.
func DefaultConfig() Config {
	return Config{Bell: true, Title: true, Desktop: true, LongRun: DefaultLongRun}
}

// Operation and payload keys of the controller's run-state events (see
// vocab.OpRunState); the window reads them, never writes them.
const (
	opRunState     = "RUN_STATE"
	stateCancelled = "cancelled"
	// opRunFinished ends a run (vocab.OpRunFinished); the reasons
	// below say a person ended it (controller.ReasonCancelled,
	// controller.ReasonAbandoned).
	opRunFinished   = "RUN_FINISHED"
	reasonCancelled = "WORKER_CANCELLED"
	reasonAbandoned = "RUN_ABANDONED"
)

// Model follows the runs of the ledger and decides the State. It is not
// a pane: the root feeds it and shows its State.
type Model struct {
	cfg       Config
	st        State
	primed    bool                 // the first snapshot was read
	alerted   State                // the last moment that rang
	started   map[string]time.Time // run → when the window first saw it running
	reason    map[string]string    // run → its latest reason code
	cancelled map[string]bool      // run → its last run state was cancelled
}

// New returns the attention of a window.
func New(cfg Config) *Model {
	return &Model{cfg: cfg, started: map[string]time.Time{}, reason: map[string]string{}, cancelled: map[string]bool{}}
}

// Config returns the configuration.
func (m *Model) Config() Config { return m.cfg }

// State returns what the window needs now.
func (m *Model) State() State { return m.st }

func runKey(task, run string) string { return task + "\x00" + run }

// Ledger follows one ledger update. It reports whether the State changed
// and whether this is a new moment that should ring (never for what was
// already so when the window opened).
func (m *Model) Ledger(u live.LedgerUpdate) (changed, ring bool) {
	for i := range u.Events {
		m.event(&u.Events[i])
	}
	s := u.Snapshot
	if s == nil || !s.Pipeline.HasValue() {
		return false, false
	}
	next := m.decide(&s.Pipeline.Value, live.RouteOf(&s.Pipeline.Value).NextAction, u.ReadAt)
	first := !m.primed
	m.primed = true
	if next == m.st {
		return false, false
	}
	m.st = next
	ring = !first && next.Need != None && next != m.alerted
	if ring {
		m.alerted = next
	}
	return true, ring
}

// Dismiss clears a Finished moment once the person acts (sends
// something); it reports whether the State changed. Blocked and Failed
// stay until the run moves on.
func (m *Model) Dismiss() bool {
	if m.st.Need != Finished {
		return false
	}
	m.st = State{}
	return true
}

// event remembers the run states and reasons of one event.
func (m *Model) event(e *ledger.Event) {
	if len(m.reason) > maxRuns {
		// Old runs are never asked about again; forget them all
		// rather than keep a list that grows with the ledger.
		m.reason, m.cancelled = map[string]string{}, map[string]bool{}
	}
	k := runKey(e.TaskID, e.RunID)
	switch {
	case e.EventType == ledger.EventSystem && e.Payload.String("operation") == opRunState:
		if r := e.Payload.String("reason_code"); r != "" {
			m.reason[k] = r
		}
		m.cancelled[k] = e.Payload.String("to") == stateCancelled
	case e.EventType == ledger.EventSystem && e.Payload.String("operation") == opRunFinished:
		// A run cancelled or abandoned after it ended (blocked, failed)
		// or while its change waited for review has no cancelled
		// attempt; its end says it.
		if r := e.Payload.String("reason_code"); r == reasonCancelled || r == reasonAbandoned {
			m.reason[k], m.cancelled[k] = r, true
		}
	case e.EventType == ledger.EventStepFailed:
		if r := e.Payload.String("reason_code"); r != "" {
			m.reason[k] = r
		}
	}
}

// decide works out the State from the pipeline.
func (m *Model) decide(p *ledger.PipelineState, next string, at time.Time) State {
	k := runKey(p.TaskID, p.RunID)
	st := State{TaskID: p.TaskID, RunID: p.RunID, StepID: p.CurrentStep, Reason: m.reason[k]}
	switch {
	case p.Status == ledger.StatusBlocked || next == nextAwait:
		st.Need = Blocked
	case p.Status == ledger.StatusAccept || next == nextReview:
		st.Need = Review
	case m.cancelled[k]:
		// Cancelled on purpose: the pipeline says FAILED for the
		// contract's sake, but nobody needs calling.
		st.Cancelled = true
		return st
	case p.Status == ledger.StatusFailed || next == nextRetry:
		st.Need = Failed
	case p.Status == ledger.StatusDone:
		if t0, ok := m.started[k]; ok && m.primed && at.Sub(t0) >= m.cfg.LongRun {
			st.Need, st.Took = Finished, at.Sub(t0).Round(time.Second)
		}
		delete(m.started, k)
		if m.st.Need == None && st.Need == None {
			return State{}
		}
		if st.Need == None && m.st.Need == Finished && m.st.RunID == p.RunID {
			return m.st // stays until dismissed
		}
	default:
		if _, ok := m.started[k]; !ok && !at.IsZero() {
			m.started[k] = at
		}
		return State{}
	}
	if st.Need == None {
		return State{}
	}
	return st
}

// maxRuns bounds the runs whose reasons the model remembers.
const maxRuns = 1024

// Next actions of the controller's route that ask for a person.
const (
	nextRetry  = string(vocab.NextRetry)
	nextAwait  = string(vocab.NextAwait)
	nextReview = string(vocab.NextReview)
)
