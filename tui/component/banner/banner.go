// Package banner shows what is wrong, one line per problem, above the
// panes: a ledger file that is missing, empty, half-written or invalid
// (while the panes keep its last good data), a lost connection, a
// controller that exited. Problems are shown, never fatal.
package banner

import (
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
)

// Level orders problems; worse ones are listed first.
type Level int

// Levels.
const (
	Info Level = iota
	Warn
	Error
)

// Item is one problem. Text is already in the person's language, except
// for items the banner builds itself, which it re-renders on a language
// switch.
type Item struct {
	Level Level
	Text  string
}

// MaxLines is the most lines the banner takes; further problems are
// counted on the last line.
const MaxLines = 3

// Model is the banner.
type Model struct {
	env  *component.Env
	w    int
	memo component.Memo

	files map[string]fileProblem // by file name
	link  link.State
	attn  attention.State
	other map[string]Item

	// cache holds the lines while built says they are current.
	cache []string
	built bool
}

// fileProblem is a ledger file that failed to load.
type fileProblem struct {
	err  error
	kept bool // its last good data is still shown
}

var _ component.Component = (*Model)(nil)

// New returns an empty banner.
func New(env *component.Env) *Model {
	return &Model{env: env, files: map[string]fileProblem{}, other: map[string]Item{}}
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements component.Component; the banner chooses its height
// (see Height).
func (m *Model) SetSize(w, _ int) {
	if w != m.w {
		m.built = false
	}
	m.w = w
	m.memo.Invalidate()
}

// SetMsg tells the banner to show (or, with an empty Text, clear) a
// problem under Key.
type SetMsg struct {
	Key  string
	Item Item
}

// set records a SetMsg. It reports whether the banner changed.
func (m *Model) set(msg SetMsg) bool {
	old, had := m.other[msg.Key]
	if msg.Item.Text == "" {
		delete(m.other, msg.Key)
		return had
	}
	m.other[msg.Key] = msg.Item
	return !had || old != msg.Item
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.env = msg.Env
	case link.StateMsg:
		m.link = msg.State
	case attention.StateMsg:
		m.attn = msg.State
	case SetMsg:
		if !m.set(msg) {
			return m, nil
		}
	case live.LedgerMsg:
		if !m.ledger(msg.Update) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.memo.Invalidate()
	m.built = false
	return m, nil
}

// ledger records the file problems of one update. It reports whether
// anything changed.
func (m *Model) ledger(u live.LedgerUpdate) bool {
	changed := false
	set := func(name string, err error, kept bool) {
		old, had := m.files[name]
		if err == nil {
			if had {
				delete(m.files, name)
				changed = true
			}
			return
		}
		if !had || old.err.Error() != err.Error() || old.kept != kept {
			changed = true
		}
		m.files[name] = fileProblem{err: err, kept: kept}
	}
	if s := u.Snapshot; s != nil {
		set(ledger.PipelineFile, s.Pipeline.Err, s.Pipeline.Stale)
		set(ledger.HeartbeatFile, s.Heartbeat.Err, s.Heartbeat.Stale)
		set(ledger.LeasesFile, s.Leases.Err, s.Leases.Stale)
	}
	if u.Snapshot != nil || u.EventsErr != nil || len(u.Events) > 0 || u.Reset {
		set(ledger.EventsFile, u.EventsErr, false)
	}
	return changed
}

// Items returns the problems to show, worst first.
func (m *Model) Items() []Item {
	var items []Item
	names := make([]string, 0, len(m.files))
	for n := range m.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		items = append(items, Item{Level: Error, Text: fileText(m.env, n, m.files[n])})
	}
	if it, ok := linkItem(m.env, m.link); ok {
		items = append(items, it)
	}
	if it, ok := AttentionItem(m.env, m.attn); ok {
		items = append(items, it)
	}
	keys := make([]string, 0, len(m.other))
	for k := range m.other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		items = append(items, m.other[k])
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Level > items[j].Level })
	return items
}

// Height is the number of lines the banner needs, at most MaxLines.
func (m *Model) Height() int { return len(m.lines()) }

// View implements tea.Model.
func (m *Model) View() string { return m.memo.Get(m.render) }

func (m *Model) render() string {
	lines := m.lines()
	if len(lines) == 0 {
		return ""
	}
	return text.Block(lines, m.w, len(lines), m.env.Tail())
}

// lines are the banner's lines, at most MaxLines, built once per change
// (the root asks for the height after every message).
func (m *Model) lines() []string {
	if m.built {
		return m.cache
	}
	m.built, m.cache = true, nil
	items := m.Items()
	st := m.env.Styles
	for i, it := range items {
		style := st.Banner.Info
		switch it.Level {
		case Error:
			style = st.Banner.Error
		case Warn:
			style = st.Banner.Warn
		}
		wrapped := wrapItem(it.Text, m.w, m.env.Tail())
		reserve := 0 // a line kept for the next problem, or for "N more"
		if i < len(items)-1 {
			reserve = 1
		}
		switch {
		case len(m.cache)+len(wrapped)+reserve <= MaxLines:
		case len(m.cache)+1+reserve <= MaxLines:
			wrapped = []string{text.Fit(" ! "+it.Text, m.w, m.env.Tail())}
		default:
			more := m.env.T("tui.banner.more", "N", strconv.Itoa(len(items)-i))
			m.cache = append(m.cache, st.Banner.Warn.Render(text.Fit(" "+more, m.w, m.env.Tail())))
			return m.cache
		}
		for _, l := range wrapped {
			m.cache = append(m.cache, style.Render(l))
		}
	}
	return m.cache
}

// wrapItem lays a problem out in at most two lines of w cells: the mark,
// then the text, wrapped under itself. A message that does not fit one
// line goes on to a second rather than lose its end, which says what to
// type ("/reject with your reason").
func wrapItem(s string, w int, tail string) []string {
	const mark, indent = " ! ", "   "
	if text.Width(mark+s) <= w || w <= len(mark)+8 {
		return []string{text.Fit(mark+s, w, tail)}
	}
	parts := text.Wrap(s, w-len(mark))
	out := []string{text.Fit(mark+parts[0], w, tail)}
	rest := strings.Join(parts[1:], " ")
	return append(out, text.Fit(indent+rest, w, tail))
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
