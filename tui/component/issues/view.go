package issues

import (
	"strconv"
	"strings"

	"github.com/daokit/daokit/lead/roster"
	"github.com/daokit/daokit/outbox"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
	"github.com/daokit/daokit/tui/theme"
)

// Column widths, in cells; the title takes the rest.
const (
	colMark  = 2
	colID    = 6
	colState = 10
)

// View implements tea.Model: the view fills its box; nothing when
// hidden.
func (m *Model) View() string {
	if !m.visible || m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	return m.Memo.Get(m.render)
}

func (m *Model) render() string {
	var lines []string
	if m.open != 0 {
		lines = m.threadLines()
	} else {
		lines = m.listLines()
	}
	// The status line is the last; every line is made exactly m.Width
	// wide, none wider than the pane.
	for len(lines) < m.Height-1 {
		lines = append(lines, "")
	}
	return text.Block(append(lines[:max(m.Height-1, 0)], m.statusLine()), m.Width, m.Height, m.Env.Tail())
}

// listLines are the title and the issues grouped by role, scrolled so
// that the cursor's row shows; the status line is added after them.
func (m *Model) listLines() []string {
	env := m.Env
	blocked := 0
	for _, v := range m.issues {
		if v.State == roster.IssueBlocked {
			blocked++
		}
	}
	info := env.T("tui.issues.info", "N", strconv.Itoa(len(m.issues)), "Blocked", strconv.Itoa(blocked))
	head := component.TitleLine(env, env.T("tui.issues.title"), info, true, m.Width)
	room := max(m.Height-2, 0) // the title and the status line
	if len(m.issues) == 0 {
		id := "tui.issues.none"
		if !m.has {
			id = "tui.issues.no_team"
		}
		return []string{head, " " + env.Styles.Muted.Render(env.T(id))}
	}
	var rows []string
	at := 0
	role := "\x00"
	for i, v := range m.issues {
		if v.Role != role {
			role = v.Role
			name := env.Clean(role)
			if role == "" {
				name = env.T("tui.issues.no_role")
			}
			rows = append(rows, " "+env.Styles.Bold.Render(text.Truncate(name, m.Width-1, env.Tail())))
		}
		if i == m.cursor {
			at = len(rows)
		}
		rows = append(rows, m.row(v, i == m.cursor))
	}
	first := 0
	if at >= room {
		first = at - room + 1
	}
	return append([]string{head}, rows[first:min(len(rows), first+room)]...)
}

// row is one issue: "▸ #3    blocked   Test login  ← #1".
func (m *Model) row(v roster.IssueView, selected bool) string {
	env := m.Env
	tail := env.Tail()
	mark := "  "
	if selected {
		mark = env.Styles.Glyphs.Focus + " "
	}
	id := text.Fit("#"+strconv.FormatInt(v.ID, 10), colID, tail)
	state := text.Fit(env.T("tui.issues.state."+v.State), colState, tail)
	rest := max(m.Width-colMark-colID-colState, 1)
	title := env.Clean(v.Title)
	if len(v.BlockedBy) > 0 {
		by := env.T("tui.issues.blocked_by", "List", outbox.FormatRefs(v.BlockedBy))
		// What blocks the issue is what a person looks for: the title
		// gives way to it.
		tw := max(rest-text.Width(by)-2, min(rest, 8))
		title = text.Truncate(title, tw, tail) + "  " + by
	}
	line := text.Fit(mark, colMark, tail) + id + env.Styles.Paint(stateTone(v.State)).Apply(state) + text.Truncate(title, rest, tail)
	if selected {
		return env.Styles.Table.Selected.Render(text.Fit(line, m.Width, tail))
	}
	return line
}

// stateTone colours a state by what it asks of a person.
func stateTone(s string) theme.Tone {
	switch s {
	case roster.IssueBlocked, roster.IssueFailed:
		return theme.ToneBad
	case roster.IssueReview:
		return theme.ToneWarn
	case roster.IssueDone:
		return theme.ToneOK
	}
	return theme.ToneNeutral
}

// threadLines are the open issue's title, what blocks it, its labels,
// its body and its comments, wrapped to the pane and scrolled.
func (m *Model) threadLines() []string {
	env := m.Env
	w := max(m.Width-2, 10)
	var v roster.IssueView
	for _, x := range m.issues {
		if x.ID == m.open {
			v = x
		}
	}
	ref := "#" + strconv.FormatInt(m.open, 10)
	info := ""
	if v.ID != 0 {
		info = env.T("tui.issues.thread_info", "Role", env.Clean(orDash(v.Role)), "State", env.T("tui.issues.state."+v.State))
	}
	title := ref
	if m.thread != nil {
		title = ref + " " + env.Clean(m.thread.Issue.Title)
	}
	head := component.TitleLine(env, title, info, true, m.Width)
	if m.thread == nil {
		return []string{head, " " + env.Styles.Muted.Render(env.T("tui.issues.loading"))}
	}
	var body []string
	if len(v.BlockedBy) > 0 {
		body = append(body, " "+env.Styles.Paint(theme.ToneBad).Apply(text.Truncate(
			env.T("tui.issues.blocked_line", "List", outbox.FormatRefs(v.BlockedBy)), w, env.Tail())))
	}
	is := m.thread.Issue
	body = append(body, " "+env.Styles.Muted.Render(text.Truncate(env.T("tui.issues.labels",
		"Labels", env.Clean(orDash(strings.Join(is.Labels, " "))), "Assignee", env.Clean(orDash(is.Assignee))), w, env.Tail())))
	entry := func(author, at, said string) {
		body = append(body, " "+env.Styles.Bold.Render(text.Truncate(env.T("tui.issues.comment_head", "Author", env.Clean(author), "Time", at), w, env.Tail())))
		if strings.TrimSpace(said) == "" {
			return
		}
		for _, l := range wrapClean(env, said, w-2) {
			body = append(body, "   "+l)
		}
	}
	entry(is.Author, env.Clock(is.Created), is.Body)
	for _, c := range m.thread.Comments {
		entry(c.Author, env.Clock(c.Created), c.Body)
	}
	// The Worker comes last: its output is what changes most, and a
	// thread follows its end.
	body = append(body, m.workerLines(m.thread.Worker, w)...)
	room := max(m.Height-2, 0)
	// A thread opens on its end (the newest comment, which is what
	// changed) and stays there as comments arrive, until scrolled up.
	last := max(len(body)-room, 0)
	if m.follow || m.top >= last {
		m.top, m.follow = last, true
	}
	return append([]string{head}, body[m.top:min(len(body), m.top+room)]...)
}

// statusLine is the last line: how to change the issue from the message
// box, or why the last read failed.
func (m *Model) statusLine() string {
	env := m.Env
	if m.err != nil {
		return " " + env.Styles.Paint(theme.ToneBad).Apply(text.Truncate(env.T("tui.issues.error",
			"Error", component.ErrorText(env, m.err)), m.Width-1, env.Tail()))
	}
	t := m.Target()
	if t == 0 {
		return ""
	}
	return " " + env.Styles.Muted.Render(text.Truncate(env.T("tui.issues.hint", "Issue", "#"+strconv.FormatInt(t, 10)), m.Width-1, env.Tail()))
}

// wrapClean wraps text's lines to w cells, each made safe to draw.
func wrapClean(env *component.Env, s string, w int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		out = append(out, text.Wrap(env.Clean(l), w)...)
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
