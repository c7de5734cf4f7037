// Package issues is the window's issues view (F6): the team's issues by
// role and state (queued, running, blocked with what blocks them,
// review, done), and the thread of one. It only reads the outbox, in a
// command on open and on the 1 Hz tick while it is shown; a comment, a
// label, a retry or a close is typed in the message box and forwarded
// to the controller, which writes the outbox (the window never does).
package issues

import (
	"context"
	"errors"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/live/outboxes"
)

// Thread is one issue with its comments, oldest first, and its Worker
// (nil: none ran or runs).
type Thread struct {
	Issue    outbox.Issue
	Comments []outbox.Comment
	Worker   *Worker
}

// LoadedMsg carries what a read found: the issues (Has: the root has a
// team at all), the folder the Leads publish in (roster.StatusDir) and,
// when an issue was open, its Thread.
type LoadedMsg struct {
	Has       bool
	Issues    []roster.IssueView
	StatusDir string
	Open      int64
	Thread    *Thread
	Err       error
}

// Model is the issues view.
type Model struct {
	component.Pane
	keys KeyMap

	root    string
	life    context.Context
	obs     *outboxes.Reader // how the outbox is read
	visible bool
	loading bool

	has       bool
	issues    []roster.IssueView
	statusDir string
	err       error
	cursor    int // index into issues

	open   int64 // the issue whose thread is shown; 0: the list
	thread *Thread
	top    int  // first thread line shown
	follow bool // the thread shows its end, the newest comment, as it grows
}

var _ component.Component = (*Model)(nil)

// New returns a hidden view of root's team (empty root: nothing is
// read), whose outbox it reads through obs. ctx bounds the reads its
// commands do.
func New(ctx context.Context, env *component.Env, root string, obs *outboxes.Reader) *Model {
	return &Model{Pane: component.Pane{Env: env}, keys: DefaultKeyMap(env.Loc), root: root, life: ctx, obs: obs}
}

// Keys returns the view's key map.
func (m *Model) Keys() KeyMap { return m.keys }

// Visible reports whether the view is drawn.
func (m *Model) Visible() bool { return m.visible }

// Show opens the view and returns the command that reads the outbox.
func (m *Model) Show() tea.Cmd {
	m.visible = true
	m.Memo.Invalidate()
	return m.load()
}

// Close hides the view (the open thread stays open for the next time).
func (m *Model) Close() {
	m.visible = false
	m.Memo.Invalidate()
}

// Reading reports whether a thread is shown (esc goes back to the list).
func (m *Model) Reading() bool { return m.open != 0 }

// Target is the issue a /comment, /label, /close or /retry without a
// number is about: the thread shown, else the issue under the cursor
// (0: none, or the view is closed).
func (m *Model) Target() int64 {
	switch {
	case !m.visible:
		return 0
	case m.open != 0:
		return m.open
	case m.cursor < len(m.issues):
		return m.issues[m.cursor].ID
	}
	return 0
}

// Issues returns the issues shown, for tests.
func (m *Model) Issues() []roster.IssueView { return m.issues }

func (m *Model) load() tea.Cmd {
	if m.loading || m.root == "" {
		return nil
	}
	m.loading = true
	var mark *Mark
	if m.thread != nil && m.thread.Worker != nil {
		mark = &m.thread.Worker.Mark
	}
	return Load(m.life, m.obs, m.root, m.open, mark)
}

// WorkerLog is the Lead's Worker of the issue a log opened from the view
// is about (Target): its role, number and attempts folder (ok false: no
// issue, or one addressed to no role).
func (m *Model) WorkerLog() (role string, issue int64, attempts string, ok bool) {
	id := m.Target()
	if id == 0 || m.statusDir == "" {
		return "", 0, "", false
	}
	for _, v := range m.issues {
		if v.ID == id && v.Role != "" {
			return v.Role, id, roster.IssueAttemptsDir(m.statusDir, v.Role, id), true
		}
	}
	return "", 0, "", false
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env, m.keys = msg.Env, DefaultKeyMap(msg.Env.Loc)
	case live.TickMsg:
		if !m.visible {
			return m, nil
		}
		return m, m.load()
	case LoadedMsg:
		if !m.take(msg) {
			// The person opened or left a thread while the read ran.
			m.Memo.Invalidate()
			return m, m.load()
		}
	case tea.KeyMsg:
		if !m.key(msg) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// take keeps what a read found; a failed read keeps the last good one
// and says why. It reports false when the read was for another thread
// than the one shown now.
func (m *Model) take(msg LoadedMsg) bool {
	m.loading = false
	m.err = msg.Err
	if msg.Err != nil {
		return true
	}
	m.has, m.statusDir = msg.Has, msg.StatusDir
	var at int64
	if m.cursor < len(m.issues) {
		at = m.issues[m.cursor].ID
	}
	m.issues = msg.Issues
	// The cursor stays on its issue when the list changes around it.
	m.cursor = min(m.cursor, max(len(m.issues)-1, 0))
	for i, v := range m.issues {
		if v.ID == at {
			m.cursor = i
		}
	}
	if msg.Open != m.open {
		return false
	}
	if w := msg.Thread.worker(); w != nil && !w.Diffed {
		// The Worker did nothing since the change shown was read.
		if old := m.thread.worker(); old != nil {
			w.Files, w.DiffErr, w.Mark = old.Files, old.DiffErr, old.Mark
		}
	}
	m.thread = msg.Thread
	return true
}

// key moves in the view; it reports whether msg changed anything.
func (m *Model) key(msg tea.KeyMsg) bool {
	k := m.keys
	page := max(m.Height-3, 1)
	switch {
	case key.Matches(msg, k.Back) && m.open != 0:
		m.open, m.thread, m.top = 0, nil, 0
	case key.Matches(msg, k.Back):
		m.Close()
	case m.open != 0 && key.Matches(msg, k.Up):
		m.top, m.follow = max(m.top-1, 0), false
	case m.open != 0 && key.Matches(msg, k.Down):
		m.top++ // the view follows again when this reaches the end
	case m.open != 0 && key.Matches(msg, k.PageUp):
		m.top, m.follow = max(m.top-page, 0), false
	case m.open != 0 && key.Matches(msg, k.PageDown):
		m.top += page
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.issues)-1, 0))
	case key.Matches(msg, k.PageUp):
		m.cursor = max(m.cursor-page, 0)
	case key.Matches(msg, k.PageDown):
		m.cursor = min(m.cursor+page, max(len(m.issues)-1, 0))
	case key.Matches(msg, k.Read) && m.cursor < len(m.issues):
		m.open, m.thread, m.top, m.follow = m.issues[m.cursor].ID, nil, 0, true
		// The thread is read by the next load (the root issues it).
	default:
		return false
	}
	return true
}

// Refresh returns the command that reads the outbox again, when the view
// is shown and no read is in flight (after a key opened a thread, or a
// change the person sent was acknowledged).
func (m *Model) Refresh() tea.Cmd {
	if !m.visible {
		return nil
	}
	return m.load()
}

// worker is t's Worker; nil for no thread.
func (t *Thread) worker() *Worker {
	if t == nil {
		return nil
	}
	return t.Worker
}

// Load reads root's team: its issues by role and state, what blocks the
// blocked ones (the Leads' status files, else their comments), and the
// thread of issue open (0: none) with its Worker's output and change
// (the change read again only when the Worker moved past mark; nil: read
// it). The outbox is read through obs, read-only, whatever its backend.
func Load(ctx context.Context, obs *outboxes.Reader, root string, open int64, mark *Mark) tea.Cmd {
	return func() tea.Msg {
		tm, err := obs.Team(root)
		if errors.Is(err, outboxes.ErrNoTeam) {
			return LoadedMsg{Open: open}
		}
		if err != nil {
			return LoadedMsg{Has: true, Open: open, Err: err}
		}
		cfg, wf := tm.Config, tm.Workflow
		ob, done, err := obs.Open(ctx, wf)
		if err != nil {
			return LoadedMsg{Has: true, Open: open, Err: err}
		}
		defer done()
		views, err := roster.Views(ctx, wf, ob, cfg.Heartbeat.WarningAfter.Std(), cfg.Heartbeat.StaleAfter.Std(), time.Now())
		if err != nil {
			return LoadedMsg{Has: true, Open: open, Err: err}
		}
		list, err := roster.Issues(ctx, ob, views)
		if err != nil {
			return LoadedMsg{Has: true, Open: open, Err: err}
		}
		msg := LoadedMsg{Has: true, Issues: list, StatusDir: roster.StatusDir(wf), Open: open}
		if open != 0 {
			is, err := ob.Issue(ctx, open)
			if err != nil {
				return LoadedMsg{Has: true, Issues: list, Open: open, Err: err}
			}
			cs, err := ob.Comments(ctx, open)
			if err != nil {
				return LoadedMsg{Has: true, Issues: list, Open: open, Err: err}
			}
			msg.Thread = &Thread{Issue: is, Comments: cs}
			role := ""
			for _, v := range list {
				if v.ID == open {
					role = v.Role
				}
			}
			prev := Mark{Attempt: -1}
			if mark != nil {
				prev = *mark
			}
			msg.Thread.Worker = readWorker(ctx, wf, views, role, open, prev)
		}
		return msg
	}
}

// ShortHelp implements help.KeyMap: what the view does now.
func (m *Model) ShortHelp() []key.Binding {
	if !m.visible {
		return nil
	}
	if m.open != 0 {
		return []key.Binding{m.keys.Back, m.keys.Log, m.keys.Up, m.keys.Down}
	}
	return []key.Binding{m.keys.Read, m.keys.Log, m.keys.Back}
}

// FullHelp implements help.KeyMap: every key of the view (the window
// gives it exactly these, see keyroute.go).
func (m *Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{{k.Open, k.Up, k.Down, k.PageUp, k.PageDown, k.Read, k.Log, k.Back}}
}
