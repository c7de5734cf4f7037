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
	// Whole: Text may hold several lines and every one is shown in full,
	// wrapped to the width rather than cut (the problems of daokit.toml).
	Whole bool
}

// MaxLines is the most lines the banner takes for one-line items;
// further problems are counted on the last line.
const MaxLines = 3

// MaxHeight is the most lines the banner takes when an item must be
// shown whole (see Item.Whole).
const MaxHeight = 12

// Model is the banner.
type Model struct {
	env  *component.Env
	w, h int // h: the lines the layout gave it, 0 before it did
	memo component.Memo

	files map[string]fileProblem // by file name
	link  link.State
	attn  attention.State
	other map[string]Item

	// cache holds the rows laid out for the height cacheH while built
	// says they are current: the root asks for the height after every
	// message.
	cache  []row
	cacheH int
	built  bool
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
func (m *Model) SetSize(w, h int) {
	if w != m.w || h != m.h {
		m.built = false
	}
	m.w, m.h = w, h
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

// Height is the number of lines the banner needs at its width: at most
// MaxLines, or MaxHeight while an item must be shown whole.
func (m *Model) Height() int { return len(m.laidOut(0)) }

// View implements tea.Model.
func (m *Model) View() string { return m.memo.Get(m.render) }

func (m *Model) render() string {
	rows := m.laidOut(m.h)
	if len(rows) == 0 {
		return ""
	}
	st := m.env.Styles
	lines := make([]string, len(rows))
	for i, r := range rows {
		style := st.Banner.Info
		switch r.level {
		case Error:
			style = st.Banner.Error
		case Warn:
			style = st.Banner.Warn
		}
		lines[i] = style.Render(text.Fit(r.text, m.w, m.env.Tail()))
	}
	return text.Block(lines, m.w, len(lines), m.env.Tail())
}

// row is one line of the banner before it is styled.
type row struct {
	level Level
	text  string
}

// laidOut is rows of the current items for height, built once per
// change.
func (m *Model) laidOut(height int) []row {
	if !m.built || m.cacheH != height {
		m.cache, m.cacheH, m.built = m.rows(m.Items(), height), height, true
	}
	return m.cache
}

// rows lays the items out in lines, worst first: one line each, or two
// when a message does not fit one and there is room (its end says what
// to type: "/reject with your reason"), an Item.Whole one wrapped over as
// many as it needs. Past the limit (MaxLines, MaxHeight with a whole
// item, and the layout's height when given) the last line counts the
// problems left out.
func (m *Model) rows(items []Item, height int) []row {
	limit := MaxLines
	var out []row
	ends := make([]int, len(items)) // where each item's lines end in out
	for k, it := range items {
		if it.Whole {
			limit = MaxHeight
			out = append(out, m.wholeRows(it)...)
			ends[k] = len(out)
			continue
		}
		lines := wrapItem(it.Text, m.w, m.env.Tail())
		reserve := 0 // a line kept for the next problem, or for "N more"
		if k < len(items)-1 {
			reserve = 1
		}
		if len(out)+len(lines)+reserve > MaxLines {
			lines = lines[:1]
		}
		for _, l := range lines {
			out = append(out, row{it.Level, l})
		}
		ends[k] = len(out)
	}
	if height > 0 {
		limit = min(limit, height)
	}
	if len(out) <= limit {
		return out
	}
	left := 0
	for _, end := range ends {
		if end > limit-1 {
			left++
		}
	}
	more := m.env.T("tui.banner.more", "N", strconv.Itoa(left))
	return append(out[:limit-1:limit-1], row{Warn, " " + more})
}

// wrapItem lays a problem out in at most two lines of w cells: the mark,
// then the text, wrapped under itself.
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

// wholeRows wraps an Item.Whole to the width: its first line after the
// mark, each further line as a point of its own.
func (m *Model) wholeRows(it Item) []row {
	var out []row
	for i, line := range strings.Split(it.Text, "\n") {
		lead := " ! "
		if i > 0 {
			lead = "   · "
		}
		pad := strings.Repeat(" ", text.Width(lead))
		for j, part := range text.Wrap(line, max(m.w-text.Width(lead), 1)) {
			if j > 0 {
				lead = pad
			}
			out = append(out, row{it.Level, lead + part})
		}
	}
	return out
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
