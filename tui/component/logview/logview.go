// Package logview is the log view of a step (like k9s' logs): the whole
// of what the step's worker printed, read from the step's stdout.log or
// stderr.log under artifacts/, or what a Lead's Worker printed in its
// latest attempt, with scrolling, search and follow. The file is read by
// live.LoadLog (LoadWorkerLog) in a command, from where the last
// read ended; the view keeps the newest MaxLines lines.
package logview

import (
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
)

// MaxLines bounds the lines the view keeps; older ones are dropped.
const MaxLines = 20000

// Source is the step whose log the view shows, and the folder its
// worker's logs are in; or a Lead's Worker: its Role and Issue, and
// Attempts, the folder of its attempts (roster.IssueAttemptsDir), of
// which the view follows the latest (Dir is then that attempt's folder,
// found by the reads).
type Source struct {
	Task, Run, Step string
	Dir             string

	Role     string
	Issue    int64
	Attempts string
	Attempt  int
}

// Worker reports whether s is a Lead's Worker.
func (s Source) Worker() bool { return s.Attempts != "" }

// same reports whether s and o are the same log: a Worker's is the same
// whichever attempt was found last.
func (s Source) same(o Source) bool {
	if s.Worker() || o.Worker() {
		return s.Attempts == o.Attempts && s.Role == o.Role && s.Issue == o.Issue
	}
	return s == o
}

// Model is the log view.
type Model struct {
	component.Pane
	keys KeyMap

	visible bool
	src     Source
	stderr  bool // stderr.log instead of stdout.log
	lines   []string
	carry   string // the unfinished last line
	offset  int64  // where the next read starts; -1 before the first
	loading bool   // a read is in flight
	err     error

	top    int  // first line shown
	follow bool // the view sticks to the end
	// query is the search; searching: the person is typing it; hits are
	// the lines that hold it, match the one the view went to (-1: none).
	query     string
	searching bool
	hits      []int
	match     int
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Typist    = (*Model)(nil)
)

// New returns a hidden view.
func New(env *component.Env) *Model {
	return &Model{Pane: component.Pane{Env: env}, keys: DefaultKeyMap(env.Loc), offset: -1, match: -1, follow: true}
}

// Keys returns the view's key map.
func (m *Model) Keys() KeyMap { return m.keys }

// Visible reports whether the view is drawn.
func (m *Model) Visible() bool { return m.visible }

// Typing implements component.Typist: printable keys are the search
// while the person types it.
func (m *Model) Typing() bool { return m.visible && m.searching }

// Len returns the number of lines kept.
func (m *Model) Len() int { return len(m.lines) }

// Source returns the step shown.
func (m *Model) Source() Source { return m.src }

// Open shows the view on src's log, following its end, and returns the
// command that reads it. The same source keeps what was read.
func (m *Model) Open(src Source) tea.Cmd {
	m.visible, m.searching = true, false
	if !src.same(m.src) {
		m.src = src
		m.restart()
	}
	m.Memo.Invalidate()
	return m.load()
}

// Close hides the view.
func (m *Model) Close() {
	m.visible, m.searching = false, false
	m.Memo.Invalidate()
}

// Refresh returns the command that reads what the log gained, when the
// view is shown and no read is in flight.
func (m *Model) Refresh() tea.Cmd {
	if !m.visible {
		return nil
	}
	return m.load()
}

// restart forgets what was read, for another file.
func (m *Model) restart() {
	m.lines, m.carry, m.offset, m.loading, m.err = nil, "", -1, false, nil
	m.top, m.follow, m.hits, m.match = 0, true, nil, -1
}

// name is the log file's name: the stream shown.
func (m *Model) name() string {
	if m.stderr {
		return "stderr.log"
	}
	return "stdout.log"
}

// path is the log file shown.
func (m *Model) path() string {
	if m.src.Dir == "" {
		return ""
	}
	return filepath.Join(m.src.Dir, m.name())
}

func (m *Model) load() tea.Cmd {
	if m.loading {
		return nil
	}
	if m.src.Worker() {
		m.loading = true
		return LoadWorkerLog(m.src.Attempts, m.name(), m.path(), m.offset)
	}
	p := m.path()
	if p == "" {
		return nil
	}
	m.loading = true
	return live.LoadLog(p, m.offset)
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env, m.keys = msg.Env, DefaultKeyMap(msg.Env.Loc)
	case live.LogMsg:
		if !m.take(msg) {
			return m, nil
		}
	case tea.KeyMsg:
		if !m.visible || !m.key(msg) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.Memo.Invalidate()
	return m, nil
}

// take keeps what a read brought, unless it is of another file or does
// not follow on from what the view has. It reports whether the view
// changed.
func (m *Model) take(msg live.LogMsg) bool {
	if m.src.Worker() {
		return m.takeWorker(msg)
	}
	if msg.Worker != "" || msg.Path != m.path() {
		return false
	}
	m.loading = false
	return m.takeData(msg)
}

// takeWorker keeps what a read of a Worker's latest attempt brought: a
// new attempt starts the view over on its log.
func (m *Model) takeWorker(msg live.LogMsg) bool {
	if msg.Worker != m.src.Attempts || (msg.Path != "" && filepath.Base(msg.Path) != m.name()) {
		return false
	}
	m.loading = false
	if msg.Path != m.path() {
		if !msg.Reset {
			return false
		}
		m.src.Dir, m.src.Attempt = "", msg.Attempt
		if msg.Path != "" {
			m.src.Dir = filepath.Dir(msg.Path)
		}
		m.hits, m.match = nil, -1
	}
	return m.takeData(msg)
}

// takeData adds what a read of the log shown brought.
func (m *Model) takeData(msg live.LogMsg) bool {
	if !msg.Reset && msg.From != m.offset {
		return false
	}
	m.err = msg.Err
	if msg.Reset {
		m.lines, m.carry, m.top = nil, "", 0
	}
	m.offset = msg.Size
	if len(msg.Data) == 0 {
		return msg.Reset || msg.Err != nil
	}
	parts := strings.Split(m.carry+string(msg.Data), "\n")
	m.carry = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		m.lines = append(m.lines, strings.TrimSuffix(l, "\r"))
	}
	if drop := len(m.lines) - MaxLines; drop > 0 {
		m.lines = append(m.lines[:0], m.lines[drop:]...)
		m.top = max(m.top-drop, 0)
	}
	m.findHits()
	return true
}

// shown returns the lines drawn: the kept ones and the unfinished last.
func (m *Model) shown() []string {
	if m.carry == "" {
		return m.lines
	}
	return append(m.lines[:len(m.lines):len(m.lines)], m.carry)
}

// key handles a key of the open view; it reports whether the view
// changed.
func (m *Model) key(msg tea.KeyMsg) bool {
	if m.searching {
		return m.searchKey(msg)
	}
	k, g := m.keys, m.Env.Keys
	page := max(m.rows()-1, 1)
	switch {
	case key.Matches(msg, g.Up):
		m.scrollBy(-1)
	case key.Matches(msg, g.Down):
		m.scrollBy(1)
	case key.Matches(msg, g.PageUp):
		m.scrollBy(-page)
	case key.Matches(msg, g.PageDown):
		m.scrollBy(page)
	case key.Matches(msg, g.Top):
		m.top, m.follow = 0, false
	case key.Matches(msg, g.Bottom), key.Matches(msg, k.Follow) && !m.follow:
		m.follow = true
	case key.Matches(msg, k.Follow):
		m.follow = false
	case key.Matches(msg, k.Search):
		m.searching = true
	case key.Matches(msg, k.Next):
		m.jump(1)
	case key.Matches(msg, k.Prev):
		m.jump(-1)
	case key.Matches(msg, k.Stream):
		m.stderr = !m.stderr
		m.restart()
	default:
		return false
	}
	return true
}

// searchKey edits the search: text adds to it, backspace takes from it,
// enter goes to the first line that holds it and esc drops it.
func (m *Model) searchKey(msg tea.KeyMsg) bool {
	switch {
	case component.IsText(msg):
		m.query += string(msg.Runes)
		if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
			m.query += " "
		}
	case msg.Type == tea.KeyBackspace:
		if r := []rune(m.query); len(r) > 0 {
			m.query = string(r[:len(r)-1])
		}
	case msg.Type == tea.KeyEnter:
		m.searching, m.match = false, m.top-1
		m.findHits()
		m.jump(1)
		return true
	case msg.Type == tea.KeyEsc:
		m.searching, m.query = false, ""
	default:
		return false
	}
	m.findHits()
	return true
}

// findHits lists the lines that hold the search (any case).
func (m *Model) findHits() {
	m.hits = m.hits[:0]
	q := strings.ToLower(m.query)
	if q == "" {
		m.match = -1
		return
	}
	for i, l := range m.lines {
		if strings.Contains(strings.ToLower(l), q) {
			m.hits = append(m.hits, i)
		}
	}
}

// jump goes to the next (d > 0) or previous line that holds the search,
// after or before the current match, wrapping around.
func (m *Model) jump(d int) {
	if len(m.hits) == 0 {
		return
	}
	next := -1
	if d > 0 {
		for _, h := range m.hits {
			if h > m.match {
				next = h
				break
			}
		}
		if next < 0 {
			next = m.hits[0]
		}
	} else {
		for i := len(m.hits) - 1; i >= 0; i-- {
			if m.hits[i] < m.match {
				next = m.hits[i]
				break
			}
		}
		if next < 0 {
			next = m.hits[len(m.hits)-1]
		}
	}
	m.match, m.follow = next, false
	m.top = max(next-m.rows()/2, 0)
}

// scrollBy moves the view d lines; moving up stops following.
func (m *Model) scrollBy(d int) {
	if m.follow {
		m.top = m.lastTop()
	}
	m.top = min(max(m.top+d, 0), m.lastTop())
	m.follow = d > 0 && m.top == m.lastTop()
}

// rows is how many log lines fit: the box less its title and status
// lines.
func (m *Model) rows() int { return max(m.Height-2, 1) }

// lastTop is the first line shown at the end of the log.
func (m *Model) lastTop() int { return max(len(m.shown())-m.rows(), 0) }

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.keys
	return []key.Binding{k.Follow, k.Search, k.Next, k.Stream}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k, g := m.keys, m.Env.Keys
	return [][]key.Binding{{k.Open, k.Follow, k.Search, k.Next, k.Prev, k.Stream, g.Up, g.Down, g.PageUp, g.PageDown, g.Top, g.Bottom}}
}
