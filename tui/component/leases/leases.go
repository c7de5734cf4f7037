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
		if !m.Focused || !m.ScrollKey(msg, &m.scroll, len(m.leases)) {
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
	return min(max(m.scroll, 0), max(len(m.leases)-(m.Height-2), 0))
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

// fit returns the columns that fit w cells (each followed by a space), in
// table order, with the room left shared out in the order they are kept.
func fit(w int) []column {
	cols := append([]column(nil), allColumns...)
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
	}
	return m.Frame("tui.pane.leases", info, m.stale, m.body())
}

func (m *Model) body() []string {
	env := m.Env
	st := env.Styles
	if !m.has || len(m.leases) == 0 {
		id := "tui.leases.none"
		if !m.has {
			id = "tui.leases.unknown"
		}
		return []string{" " + st.Muted.Render(env.T(id))}
	}
	cols := fit(m.Width - 1)
	header := " "
	for _, c := range cols {
		header += st.PanePaint.Header.Apply(text.Fit(env.T(c.id), c.width, env.Tail())) + " "
	}
	lines := []string{header}
	room := m.Height - 2
	for i := m.first(); i < len(m.leases) && len(lines) <= room; i++ {
		lines = append(lines, m.row(&m.leases[i], cols))
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
			cell, paint = env.Clean(l.Status), st.Paint(component.LeaseTone(l.Status))
		case "tui.leases.expiry":
			cell, paint = m.expiry(l)
		}
		out += paint.Apply(text.Fit(cell, c.width, env.Tail())) + " "
	}
	return out
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
func (m *Model) ShortHelp() []key.Binding { return []key.Binding{m.Env.Keys.Up, m.Env.Keys.Down} }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Env.Keys
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}}
}
