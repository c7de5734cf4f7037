// Package conversation is the conversation pane: what the person asked,
// whether the controller took it, the controller's reports, and a short
// live digest of the active step's worker output, with scrollback.
package conversation

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
)

// MaxEntries bounds the scrollback.
const MaxEntries = 1000

// Model is the conversation pane.
type Model struct {
	component.Pane
	gen uint64

	entries []*entry
	changes uint64 // counts changes to the entries, for saving
	scroll  int    // lines scrolled up from the bottom
	digest  digest
	// active is the step of the controller's current run, whose output
	// the digest shows unless a task is in focus.
	active outputKey
	// focus is the task the window is focused on ("" for all).
	focus string
	// seen holds the ids of the ledger events made entries (fold.go).
	seen map[string]bool
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Focuser   = (*Model)(nil)
)

// New returns an empty pane.
func New(env *component.Env) *Model { return &Model{Pane: component.Pane{Env: env}, gen: 1} }

// SetSize implements component.Component. Entries are wrapped once per
// width, so a new width wraps them again.
func (m *Model) SetSize(w, h int) {
	if w != m.Width {
		m.gen++
	}
	m.Pane.SetSize(w, h)
}

// Len returns the number of entries.
func (m *Model) Len() int { return len(m.entries) }

// add appends an entry. Its time is never before the one above it: the
// ledger's time of an event read after a later note is shown as the
// time the window learned of it, so that the clock only moves forward
// down the pane.
func (m *Model) add(e *entry) {
	if e.at.IsZero() && m.Env.Now != nil {
		e.at = m.Env.Now()
	}
	if n := len(m.entries); n > 0 && e.at.Before(m.entries[n-1].at) {
		e.at = m.entries[n-1].at
	}
	m.entries = append(m.entries, e)
	if len(m.entries) > MaxEntries {
		m.entries = append(m.entries[:0], m.entries[len(m.entries)-MaxEntries:]...)
	}
	m.changes++
	m.Memo.Invalidate()
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
		m.gen++
	case NoteMsg:
		m.add(&entry{kind: msg.Kind, at: msg.At, id: msg.ID, args: msg.Args, text: msg.Text})
	case RestoreMsg:
		m.restore(msg.Entries)
	case SentMsg:
		m.add(&entry{kind: KindUser, seq: msg.Seq, at: msg.At, text: msg.Text, task: msg.Task, followUp: msg.FollowUp})
	case FocusMsg:
		m.focus, m.scroll = msg.TaskID, 0
	case live.ForwardedMsg:
		m.delivered(msg.Seq, msg.Ack, msg.Err)
	case live.ControlledMsg:
		m.delivered(msg.Seq, msg.Ack, msg.Err)
	case live.RelayMsg:
		if !m.relay(msg.Update) {
			return m, nil
		}
	case live.LedgerMsg:
		if !m.flow(msg.Update) {
			return m, nil
		}
	case tea.KeyMsg:
		if !m.Focused || !m.scrollKey(msg) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// delivered marks the message seq as taken or failed.
func (m *Model) delivered(seq int, ack live.Ack, err error) {
	for i := len(m.entries) - 1; i >= 0; i-- {
		e := m.entries[i]
		if e.kind != KindUser || e.seq != seq {
			continue
		}
		e.gen = 0
		m.changes++
		if err != nil {
			e.delivery, e.note = Failed, component.ErrorText(m.Env, err)
			return
		}
		e.delivery = Delivered
		e.note = routeNote(ack)
		if e.followUp {
			e.note = m.Env.T("tui.tasks.follow_up_of", "Task", m.Env.Clean(ack.TaskID)) + " " + e.note
		}
		if e.task == "" {
			e.task = ack.TaskID
		}
		if ack.Duplicate {
			e.note += " " + m.Env.T("tui.conversation.duplicate")
		}
		return
	}
}

func routeNote(a live.Ack) string {
	out := a.TaskID
	if a.ActiveStep != "" {
		out += " " + a.ActiveStep
	}
	if a.ActiveLane != "" {
		out += "@" + a.ActiveLane
	}
	return out
}

// relay turns controller notices into entries and the worker digest. It
// reports whether the pane changed.
func (m *Model) relay(u live.RelayUpdate) bool {
	switch {
	case u.Output != nil:
		k := keyOf(*u.Output)
		if k.task == "" && k.run == "" {
			// A line that names no run (a controller that does not say)
			// is taken for the current run's.
			k.task, k.run = m.active.task, m.active.run
		}
		m.digest.add(k, *u.Output)
		return m.digest.shown(m.focus, m.active) == k
	case u.Route != nil:
		m.active = outputKey{task: u.Route.TaskID, run: u.Route.RunID, step: u.Route.ActiveStep}
	case u.Status != nil:
		r := u.Status.Route
		m.active = outputKey{task: r.TaskID, run: r.RunID, step: r.ActiveStep}
	case u.Run != nil:
		// Stored by catalog id with the raw values, labelled when drawn:
		// a language switch redraws the line in the new language.
		m.foldRunState(*u.Run)
	case u.Controller != nil:
		c := u.Controller
		e := catalogEntry(KindController, "tui.conversation.controller_state", "State", c.State, "PID", strconv.Itoa(c.PID))
		e.labeled = labels("State", component.KindController)
		m.add(e)
	default:
		return false
	}
	return true
}

func (m *Model) scrollKey(msg tea.KeyMsg) bool {
	k := m.Env.Keys
	page := max(m.Height-2, 1)
	switch {
	case key.Matches(msg, k.Up):
		m.scroll++
	case key.Matches(msg, k.Down):
		m.scroll--
	case key.Matches(msg, k.PageUp):
		m.scroll += page
	case key.Matches(msg, k.PageDown):
		m.scroll -= page
	case key.Matches(msg, k.Top):
		m.scroll = 1 << 30
	case key.Matches(msg, k.Bottom):
		m.scroll = 0
	default:
		return false
	}
	m.scroll = max(m.scroll, 0)
	return true
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Env.Keys
	return []key.Binding{k.Up, k.Down, k.Bottom}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}
