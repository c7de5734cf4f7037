package tasks

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// Column widths, in cells; the instruction takes the rest.
const (
	colMark  = 2 // the cursor and the steered mark
	colNeed  = 2
	colID    = 13
	colState = 16
	colIter  = 4
	colAge   = 9
	colCost  = 8
)

// View implements tea.Model: the list fills its box (title line
// included); nothing when hidden.
func (m *Model) View() string {
	if !m.visible {
		return ""
	}
	return m.Memo.Get(m.render)
}

func (m *Model) render() string {
	env := m.Env
	rows := m.rows()
	need := 0
	for _, t := range m.order {
		if t.NeedsYou() {
			need++
		}
	}
	info := env.T("tui.tasks.info", "N", strconv.Itoa(len(m.order)), "Need", strconv.Itoa(need))
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	// Every line is made exactly m.Width wide here (the rows when they
	// are drawn, and kept so), so the frame is a join: no line is
	// measured again per frame.
	fit := func(s string) string { return text.Fit(s, m.Width, env.Tail()) }
	lines := make([]string, 0, m.Height)
	lines = append(lines, component.TitleLine(env, env.T("tui.tasks.title"), info, true, m.Width),
		fit(m.filterLine(len(rows))), env.Styles.Table.Header.Render(fit(m.header())))
	room := max(m.Height-len(lines), 0)
	if len(rows) == 0 {
		id := "tui.tasks.empty"
		if len(m.order) > 0 {
			id = "tui.tasks.no_match"
		}
		lines = append(lines, fit(" "+env.Styles.Muted.Render(env.T(id))))
	}
	first := 0
	if m.cursor >= room {
		first = m.cursor - room + 1
	}
	for i := first; i < len(rows) && i < first+room; i++ {
		lines = append(lines, m.row(rows[i], i == m.cursor))
	}
	blank := strings.Repeat(" ", m.Width)
	for len(lines) < m.Height {
		lines = append(lines, blank)
	}
	return strings.Join(lines[:m.Height], "\n")
}

// filterLine says what the list shows: all tasks or those that need the
// person, and the search, with the cursor while it is typed.
func (m *Model) filterLine(shown int) string {
	env := m.Env
	what := env.T("tui.tasks.filter.all", "N", strconv.Itoa(shown))
	if m.needsOnly {
		what = env.T("tui.tasks.filter.needs", "N", strconv.Itoa(shown))
	}
	if m.query != "" || m.searching {
		q := env.Clean(m.query)
		if m.searching {
			q += searchCursor(env.Wide)
		}
		what += env.Styles.Glyphs.Sep + env.T("tui.tasks.filter.search", "Query", q)
	}
	return " " + env.Styles.Muted.Render(what)
}

// header is the column titles.
func (m *Model) header() string {
	env := m.Env
	return m.cell("", colMark) + m.cell(env.T("tui.tasks.col.need"), colNeed) + m.cell(env.T("tui.tasks.col.task"), colID) +
		m.cell(env.T("tui.tasks.col.state"), colState) + m.cell(env.T("tui.tasks.col.iteration"), colIter) +
		m.cell(env.T("tui.tasks.col.age"), colAge) + m.cell(env.T("tui.tasks.col.cost"), colCost) + env.T("tui.tasks.col.instruction")
}

// row draws one task: the row drawn before unless the task or the
// list's generation changed it (the row under the cursor is kept apart).
func (m *Model) row(t *Task, cursor bool) string {
	if cursor {
		if t.cgen != m.gen {
			t.cline, t.cgen = m.drawRow(t, true), m.gen
		}
		return t.cline
	}
	if t.gen != m.gen {
		t.line, t.gen = m.drawRow(t, false), m.gen
	}
	return t.line
}

// drawRow draws one task.
func (m *Model) drawRow(t *Task, cursor bool) string {
	env := m.Env
	g := env.Styles.Glyphs
	mark := " "
	if t.ID == m.steered {
		mark = g.Current
	}
	if cursor {
		mark = g.Cursor
	}
	need := ""
	if t.NeedsYou() {
		need = "!"
	}
	it := "-"
	if t.Iteration > 0 {
		it = strconv.Itoa(t.Iteration)
	}
	age := ""
	if !t.Started.IsZero() && !m.now.IsZero() {
		age = env.Duration(m.now.Sub(t.Started))
	}
	cost := "-"
	if c := t.Cost(); c > 0 {
		cost = "$" + strconv.FormatFloat(c, 'f', 2, 64)
	}
	line := m.cell(mark, colMark) + m.cell(need, colNeed) + m.cell(env.Clean(t.ID), colID) + m.cell(m.state(t), colState) +
		m.cell(it, colIter) + m.cell(age, colAge) + m.cell(cost, colCost) + env.Clean(oneLine(t.Text))
	line = text.Fit(line, m.Width, env.Tail())
	switch {
	case cursor:
		return env.Styles.Table.Selected.Render(line)
	case t.NeedsYou():
		return env.Styles.Banner.Warn.Render(line)
	}
	return line
}

// state words where the task stands, in the person's language, from
// the task's display model.
func (m *Model) state(t *Task) string {
	env := m.Env
	d := t.Display(t.ID == m.steered)
	w := d.Word
	if d.Waiting && d.Detail.Lane != "" {
		// Only the steered task says which lane it waits for.
		return component.Word(env, w) + env.Styles.Glyphs.Sep + env.Clean(d.Detail.Lane)
	}
	return component.Word(env, w)
}

// cell fits s to w cells with a space after it.
func (m *Model) cell(s string, w int) string { return text.Fit(s, w-1, m.Env.Tail()) + " " }

// oneLine is the first line of s.
func oneLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

// searchCursor ends the query while it is typed: a thin bar, or "_"
// where ambiguous characters are wide.
func searchCursor(wide bool) string {
	if wide {
		return "_"
	}
	return "▏"
}
