// Package leases is the lease pane: a table of the lease register (lane,
// step, holder pid and thread, status, time to expiry), live ones first,
// taken-over and expired ones marked. Time to expiry moves with the 1 Hz
// tick; an ACTIVE lease past its expiry (nothing sweeps them) is marked
// as overdue.
package leases

import (
	"sort"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Model is the lease pane.
type Model struct {
	component.Pane

	leases []ledger.Lease // sorted for display
	all    bool           // show ended leases (released, taken over, expired) too
	has    bool
	stale  bool
	now    time.Time
	scroll int
}

var (
	_ component.Component = (*Model)(nil)
	_ component.Focuser   = (*Model)(nil)
)

// New returns an empty pane.
func New(env *component.Env) *Model { return &Model{Pane: component.Pane{Env: env}} }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.EnvMsg:
		m.Env = msg.Env
	case live.TickMsg:
		m.now = msg.Now
		if len(m.leases) == 0 {
			return m, nil
		}
	case live.LedgerMsg:
		s := msg.Update.Snapshot
		if s == nil {
			return m, nil
		}
		if m.now.IsZero() {
			m.now = msg.Update.ReadAt
		}
		m.has, m.stale = s.Leases.HasValue(), s.Leases.Stale
		m.leases = sorted(s.Leases.Value.Leases)
	case tea.KeyMsg:
		if !m.Focused {
			return m, nil
		}
		if key.Matches(msg, m.Env.Keys.LeasesAll) {
			m.all, m.scroll = !m.all, 0
		} else if !m.ScrollKey(msg, &m.scroll, len(m.shown())) {
			return m, nil
		}
	default:
		return m, nil
	}
	m.scroll = m.first()
	m.Memo.Invalidate()
	return m, nil
}

// first is the first row shown: the scroll offset, kept in range. Update
// stores it back; View only reads it.
func (m *Model) first() int {
	return min(max(m.scroll, 0), max(len(m.shown())-(m.Height-2), 0))
}

// shown is the leases the table lists: the active ones, or all with the
// toggle. The register never deletes a record, so ended ones pile up.
func (m *Model) shown() []ledger.Lease {
	if m.all {
		return m.leases
	}
	n := 0
	for n < len(m.leases) && m.leases[n].Status == ledger.LeaseActive {
		n++ // sorted: active ones first
	}
	return m.leases[:n]
}

// sorted orders leases: ACTIVE first, then by last update, newest first.
// The register never deletes records, so history sinks to the bottom.
func sorted(in []ledger.Lease) []ledger.Lease {
	out := append([]ledger.Lease(nil), in...)
	sort.SliceStable(out, func(i, j int) bool {
		ai, aj := out[i].Status == ledger.LeaseActive, out[j].Status == ledger.LeaseActive
		if ai != aj {
			return ai
		}
		return out[i].UpdatedAt > out[j].UpdatedAt
	})
	return out
}

// column is one table column: its header id, its narrowest and widest
// width, and how long it stays when the pane narrows (lower drops first).
type column struct {
	id       string
	min, max int
	keep     int
	width    int
}

var allColumns = []column{
	{id: "tui.leases.lane", min: 6, max: 12, keep: 5},
	{id: "tui.leases.step", min: 4, max: 8, keep: 3},
	{id: "tui.leases.pid", min: 5, max: 8, keep: 2},
	{id: "tui.leases.thread", min: 8, max: 16, keep: 1},
	{id: "tui.leases.status", min: 10, max: 10, keep: 6},
	{id: "tui.leases.expiry", min: 9, max: 16, keep: 4},
}

// widest returns, per column id, the width of its longest cell among
// leases (and its header), so that columns grow to their content.
func (m *Model) widest(leases []ledger.Lease) map[string]int {
	env := m.Env
	out := map[string]int{}
	for _, c := range allColumns {
		out[c.id] = text.Width(env.T(c.id))
	}
	grow := func(id, s string) { out[id] = max(out[id], text.Width(s)) }
	for i := range leases {
		l := &leases[i]
		grow("tui.leases.lane", env.Clean(l.Lane))
		grow("tui.leases.step", env.Clean(l.StepID))
		grow("tui.leases.pid", strconv.Itoa(l.PID))
		grow("tui.leases.thread", env.Clean(l.ThreadID))
		grow("tui.leases.status", m.status(l))
		e, _ := m.expiry(l)
		grow("tui.leases.expiry", e)
	}
	return out
}

// fit returns the columns that fit w cells (each followed by a space), in
// table order, with the room left shared out in the order they are kept;
// no column grows past its widest cell.
func fit(w int, widest map[string]int) []column {
	cols := append([]column(nil), allColumns...)
	for i := range cols {
		if n, ok := widest[cols[i].id]; ok {
			cols[i].max = max(n, cols[i].min)
		}
	}
	need := func() int {
		n := 0
		for _, c := range cols {
			n += c.min + 1
		}
		return n
	}
	for need() > w && len(cols) > 2 {
		drop := 0
		for i, c := range cols {
			if c.keep < cols[drop].keep {
				drop = i
			}
		}
		cols = append(cols[:drop], cols[drop+1:]...)
	}
	extra := max(w-need(), 0)
	for i := range cols {
		cols[i].width = cols[i].min
	}
	for keep := 6; keep >= 1 && extra > 0; keep-- {
		for i := range cols {
			if cols[i].keep == keep {
				add := min(cols[i].max-cols[i].width, extra)
				cols[i].width += add
				extra -= add
			}
		}
	}
	return cols
}

// View implements tea.Model.
func (m *Model) View() string { return m.Memo.Get(m.render) }

func (m *Model) render() string {
	env := m.Env
	info := ""
	if m.has {
		active := 0
		for _, l := range m.leases {
			if l.Status == ledger.LeaseActive {
				active++
			}
		}
		info = env.T("tui.leases.count", "Active", strconv.Itoa(active), "Total", strconv.Itoa(len(m.leases)))
		if ended := len(m.leases) - active; ended > 0 {
			id := "tui.leases.ended_hidden"
			if m.all {
				id = "tui.leases.ended_shown"
			}
			long := env.T(id, "Active", strconv.Itoa(active), "Ended", strconv.Itoa(ended), "Key", env.Keys.LeasesAll.Help().Key)
			// The title keeps the short count when the long one
			// would not fit beside it.
			if text.Width(env.T("tui.pane.leases"))+text.Width(long)+8 <= m.Width {
				info = long
			}
		}
	}
	return m.Frame("tui.pane.leases", info, m.stale, m.body())
}

func (m *Model) body() []string {
	env := m.Env
	st := env.Styles
	shown := m.shown()
	if !m.has || len(shown) == 0 {
		id := "tui.leases.none"
		switch {
		case !m.has:
			id = "tui.leases.unknown"
		case len(m.leases) > 0:
			id = "tui.leases.none_active"
		}
		return []string{" " + st.Muted.Render(env.T(id, "Key", env.Keys.LeasesAll.Help().Key))}
	}
	cols := fit(m.Width-1, m.widest(shown))
	header := " "
	for _, c := range cols {
		header += st.PanePaint.Header.Apply(text.Fit(env.T(c.id), c.width, env.Tail())) + " "
	}
	lines := []string{header}
	room := m.Height - 2
	for i := m.first(); i < len(shown) && len(lines) <= room; i++ {
		lines = append(lines, m.row(&shown[i], cols))
	}
	return lines
}

// row draws one lease.
func (m *Model) row(l *ledger.Lease, cols []column) string {
	env := m.Env
	st := env.Styles
	out := " "
	for _, c := range cols {
		var cell string
		paint := st.TextPaint
		switch c.id {
		case "tui.leases.lane":
			cell = env.Clean(l.Lane)
		case "tui.leases.step":
			cell = env.Clean(l.StepID)
		case "tui.leases.pid":
			cell = strconv.Itoa(l.PID)
		case "tui.leases.thread":
			cell, paint = env.Clean(l.ThreadID), st.MutedPaint
		case "tui.leases.status":
			cell, paint = m.status(l), st.Paint(component.LeaseTone(l.Status))
		case "tui.leases.expiry":
			cell, paint = m.expiry(l)
		}
		out += paint.Apply(midFit(cell, c.width, env.Tail())) + " "
	}
	return out
}

// midFit fits s into w cells, cutting it in the middle when it is too
// long: ids and thread names differ at both ends ("controller-7f3a…"),
// so both ends stay.
func midFit(s string, w int, tail string) string {
	if text.Width(s) <= w || w <= text.Width(tail)+2 {
		return text.Fit(s, w, tail)
	}
	room := w - text.Width(tail)
	leftW := (room + 1) / 2
	rs := []rune(s)
	left, lw := 0, 0
	for left < len(rs) && lw+text.Width(string(rs[left])) <= leftW {
		lw += text.Width(string(rs[left]))
		left++
	}
	right, rw := len(rs), 0
	for right > left && rw+text.Width(string(rs[right-1])) <= room-lw {
		rw += text.Width(string(rs[right-1]))
		right--
	}
	return text.Fit(string(rs[:left])+tail+string(rs[right:]), w, tail)
}

// status words the lease's status in the person's language (the stored
// ACTIVE reads "held"); a status of another tool shows as it is stored.
func (m *Model) status(l *ledger.Lease) string {
	return m.Env.Clean(m.Env.Labels.Or(component.KindLease, l.Status))
}

// expiry says how long the lease has left, or how long ago it ran out.
func (m *Model) expiry(l *ledger.Lease) (string, theme.Paint) {
	env := m.Env
	st := env.Styles
	t, err := ledger.ParseTime(l.Expiry)
	if err != nil {
		return env.T("tui.leases.bad_expiry"), st.Paint(theme.ToneBad)
	}
	if m.now.IsZero() {
		return "", st.MutedPaint
	}
	left := t.Sub(m.now)
	switch l.Status {
	case ledger.LeaseReleased, ledger.LeaseTakenOver:
		// The token no longer works: its expiry says nothing.
		return env.T("tui.none"), st.MutedPaint
	}
	if left > 0 {
		return env.T("tui.leases.expires_in", "D", env.Duration(left)), st.TextPaint
	}
	if l.Status == ledger.LeaseActive {
		return env.T("tui.leases.overdue", "D", env.Duration(left)), st.Paint(theme.ToneBad)
	}
	return env.T("tui.leases.expired_ago", "D", env.Duration(left)), st.MutedPaint
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Env.Keys
	return []key.Binding{k.Up, k.Down, k.LeasesAll}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom, k.LeasesAll}}
}
