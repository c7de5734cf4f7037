package logview

import (
	"strconv"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/text"
)

// View implements tea.Model: the view fills its box; nothing when
// hidden.
func (m *Model) View() string {
	if !m.visible {
		return ""
	}
	return m.Memo.Get(m.render)
}

func (m *Model) render() string {
	env := m.Env
	lines := m.shown()
	rows := m.rows()
	if m.follow {
		m.top = m.lastTop()
	}
	m.top = min(m.top, m.lastTop())
	stream := "stdout"
	if m.stderr {
		stream = "stderr"
	}
	title := env.T("tui.log.title", "Task", env.Clean(m.src.Task), "Step", env.Clean(m.src.Step), "Stream", stream)
	if m.src.Worker() {
		title = env.T("tui.log.title_worker", "Role", env.Clean(m.src.Role), "Issue", "#"+strconv.FormatInt(m.src.Issue, 10),
			"Attempt", strconv.Itoa(m.src.Attempt), "Stream", stream)
	}
	state := env.T("tui.log.paused")
	if m.follow {
		state = env.T("tui.log.following")
	}
	info := env.T("tui.log.info", "N", strconv.Itoa(len(lines)), "State", state)
	body := make([]string, 0, rows+1)
	switch {
	case m.src.Worker() && m.src.Dir == "":
		body = append(body, " "+env.Styles.Muted.Render(env.T("tui.log.no_attempt")))
	case m.src.Dir == "":
		body = append(body, " "+env.Styles.Muted.Render(env.T("tui.log.no_step")))
	case len(lines) == 0:
		body = append(body, " "+env.Styles.Muted.Render(env.T("tui.log.empty", "Path", env.Clean(m.path()))))
	}
	hit := map[int]bool{}
	for _, h := range m.hits {
		if h >= m.top && h < m.top+rows {
			hit[h] = true
		}
	}
	for i := m.top; i < len(lines) && i < m.top+rows; i++ {
		l := " " + text.Truncate(env.Clean(lines[i]), m.Width-1, env.Tail())
		switch {
		case i == m.match:
			l = env.Styles.Table.Selected.Render(text.Fit(l, m.Width, env.Tail()))
		case hit[i]:
			l = env.Styles.Bold.Render(l)
		}
		body = append(body, l)
	}
	for len(body) < rows {
		body = append(body, "")
	}
	return component.Frame(env, title, info, true, m.Width, m.Height, append(body, m.statusLine()))
}

// statusLine is the last line: the search being typed or kept, with its
// matches, or what went wrong reading the log, or the view's keys.
func (m *Model) statusLine() string {
	env := m.Env
	switch {
	case m.err != nil:
		return " " + env.Styles.Banner.Error.Render(env.T("tui.log.error", "Error", env.Clean(m.err.Error())))
	case m.searching || m.query != "":
		q := env.Clean(m.query)
		if m.searching {
			q += "_"
		}
		at := 0
		for i, h := range m.hits {
			if h == m.match {
				at = i + 1
			}
		}
		return " " + env.T("tui.log.search", "Query", q, "At", strconv.Itoa(at), "N", strconv.Itoa(len(m.hits)))
	}
	return " " + env.Styles.Muted.Render(env.T("tui.log.hint"))
}
