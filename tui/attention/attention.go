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
	"github.com/daokit/daokit/projection"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/vocab"
)

// Need is why the window calls for its person: the projection's, so
// that the banner, the title and the task list's mark agree.
type Need = projection.Need

// Needs, from none to the most urgent.
const (
	None     = projection.NeedNone
	Finished = projection.NeedFinished // DONE after a long run
	Failed   = projection.NeedFailed   // the run failed; /retry or /cancel
	Blocked  = projection.NeedBlocked  // the run is blocked and waits for the person
	Review   = projection.NeedReview   // a step's change waits for /accept or /reject
)

// State is what the window needs its person for, and about which run.
type State struct {
	Need                  Need
	TaskID, RunID, StepID string
	Reason                string        // the run's last reason code, "" if none
	Took                  time.Duration // how long a Finished run ran
	// Run is the pipeline's run as the projection settled it (see
	// projection.Settled): the pipeline pane and /status word its
	// status from it, so that a run a person cancelled or dropped reads
	// as such, not as the FAILED the pipeline says for the contract's
	// sake.
	Run projection.Entry
}

// EndedByPerson reports whether st says that run (task, run) was
// ended on purpose by a person (cancelled or abandoned).
func (st State) EndedByPerson(task, run string) bool {
	return st.Run.TaskID == task && st.Run.RunID == run && st.Run.EndedByPerson()
}

// Pipeline returns the display of the status of the pipeline at run
// (task, run): what the projection makes of it with what the attention
// heard of that run.
func (st State) Pipeline(task, run, status string) projection.Display {
	e := projection.Entry{TaskID: task, RunID: run}
	if st.Run.TaskID == task && st.Run.RunID == run {
		e = st.Run
	}
	return projection.Pipeline(vocab.Status(status), e)
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

// Model follows the runs of the ledger and decides the State. It is not
// a pane: the root feeds it and shows its State.
type Model struct {
	cfg     Config
	st      State
	primed  bool                 // the first snapshot was read
	alerted State                // the last moment that rang
	started map[string]time.Time // run → when the window first saw it running
	// heard is what each run's events said, folded by the projection.
	heard map[string]projection.Entry
}

// New returns the attention of a window.
func New(cfg Config) *Model {
	return &Model{cfg: cfg, started: map[string]time.Time{}, heard: map[string]projection.Entry{}}
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

// event folds one event into what its run's events said.
func (m *Model) event(e *ledger.Event) {
	if len(m.heard) > maxRuns {
		// Old runs are never asked about again; forget them all
		// rather than keep a list that grows with the ledger.
		m.heard = map[string]projection.Entry{}
	}
	p := e.Payload
	u := projection.Update{TaskID: e.TaskID, RunID: e.RunID}
	op := ""
	if e.EventType == ledger.EventSystem {
		op = p.String("operation")
	}
	switch {
	case op == string(vocab.OpRunState):
		u.StepID, u.Lane, u.State = e.StepID, p.String("lane"), vocab.RunState(p.String("to"))
	case op == string(vocab.OpRunFinished):
		u.Final = vocab.Status(p.String("status"))
	case e.EventType == ledger.EventStepFailed:
	default:
		return
	}
	u.Reason = vocab.Reason(p.String("reason_code"))
	k := runKey(e.TaskID, e.RunID)
	h, ok := m.heard[k]
	if !ok {
		h = projection.Entry{TaskID: e.TaskID, RunID: e.RunID}
	}
	h.Fold(u)
	m.heard[k] = h
}

// decide works out the State from the pipeline: the projection settles
// its run from the pipeline's status, the route's next action and what
// the run's events said, and says whether it needs its person.
func (m *Model) decide(p *ledger.PipelineState, next string, at time.Time) State {
	k := runKey(p.TaskID, p.RunID)
	h, ok := m.heard[k]
	if !ok {
		h = projection.Entry{TaskID: p.TaskID, RunID: p.RunID}
	}
	h.StepID = p.CurrentStep
	run := projection.Settled(h, vocab.Status(p.Status), vocab.Next(next))
	d := projection.Project(run, true)
	st := State{Need: d.Need, TaskID: p.TaskID, RunID: p.RunID, StepID: p.CurrentStep, Reason: string(run.Reason), Run: run}
	switch {
	case d.NeedsYou():
		return st
	case d.Done():
		if t0, ok := m.started[k]; ok && m.primed && at.Sub(t0) >= m.cfg.LongRun {
			st.Need, st.Took = Finished, at.Sub(t0).Round(time.Second)
		}
		delete(m.started, k)
		if st.Need == None && m.st.Need == Finished && m.st.RunID == p.RunID {
			return m.st // stays until dismissed
		}
	case run.Going():
		if _, ok := m.started[k]; !ok && !at.IsZero() {
			m.started[k] = at
		}
	}
	if st.Need == None {
		if run.EndedByPerson() {
			// Nobody needs calling, but the panes say what the
			// person did.
			return State{Run: run}
		}
		return State{}
	}
	return st
}

// maxRuns bounds the runs whose reasons the model remembers.
const maxRuns = 1024
