package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/helpview"
	"github.com/daokit/daokit/tui/text"
)

// resize lays the window out for a new terminal size.
func (m *Model) resize(w, h int) {
	m.w, m.h = w, h
	// The banner's height depends on its width (a whole item wraps).
	m.banner.SetSize(w, 0)
	m.relayout()
}

// relayout recomputes the layout (the banner's height may have changed)
// and gives every pane its size.
func (m *Model) relayout() {
	if m.w == 0 && m.h == 0 {
		return
	}
	l := computeLayout(m.w, m.h, m.banner.Height(), m.pipe.Wants(), m.opts.ReadOnly).withRoles(m.roles.Has())
	if l == m.lay {
		return
	}
	m.lay = l
	m.route.SetSize(l.w, 1)
	m.banner.SetSize(l.w, l.bannerH)
	m.input.SetSize(l.w, l.inputH)
	m.status.SetSize(l.w, 1)
	m.changes.SetSize(l.w, l.bodyH)
	m.tasks.SetSize(l.w, l.bodyH)
	m.logs.SetSize(l.w, l.bodyH)
	m.issues.SetSize(l.w, l.bodyH)
	switch l.mode {
	case modeColumns:
		m.pipe.SetSize(l.leftW, l.pipeH)
		m.hb.SetSize(l.leftW, l.hbH)
		m.leases.SetSize(l.leftW, l.leasesH)
		m.roles.SetSize(l.leftW, l.rolesH)
		m.conv.SetSize(l.rightW, l.convH)
		m.events.SetSize(l.rightW, l.eventsH)
	case modeSingle:
		for _, p := range []interface{ SetSize(int, int) }{m.pipe, m.leases, m.conv, m.events} {
			p.SetSize(l.w, l.singleH)
		}
		m.hb.SetSize(l.w, max(l.singleHBH, l.singleH))
	}
}

// View implements tea.Model. It only draws: Update has settled
// everything it reads.
func (m *Model) View() string { return m.render() }

// render composes the frame. Every part is already exactly as wide as
// the terminal, so composing is concatenation.
func (m *Model) render() string {
	l := m.lay
	switch {
	case m.w == 0 || m.h == 0:
		return ""
	case l.mode == modeTooSmall:
		return m.tooSmall()
	}
	parts := make([]string, 0, 7)
	parts = append(parts, m.route.View())
	if l.bannerH > 0 {
		parts = append(parts, text.Block(strings.Split(m.banner.View(), "\n"), l.w, l.bannerH, m.env.Tail()))
	}
	parts = append(parts, m.body(), m.input.View(), m.status.View(), m.helpLine)
	return strings.Join(parts, "\n")
}

// body draws the panes between the banner and the input.
func (m *Model) body() string {
	l := m.lay
	if m.showHelp {
		return m.help.View(m.env, m.fullHelp(), m.helpNotes(), l.w, l.bodyH)
	}
	if m.tasks.Visible() {
		return m.tasks.View()
	}
	if m.logs.Visible() {
		return m.logs.View()
	}
	if m.issues.Visible() {
		return m.issues.View()
	}
	if m.changes.Visible() {
		return m.changes.View()
	}
	if l.mode == modeSingle {
		return m.single()
	}
	left := m.pipe.View() + "\n" + m.hb.View() + "\n" + m.leases.View()
	if l.rolesH > 0 {
		left += "\n" + m.roles.View()
	}
	right := m.conv.View() + "\n" + m.events.View()
	gap := strings.TrimSuffix(strings.Repeat(strings.Repeat(" ", l.gap)+"\n", l.bodyH), "\n")
	return text.JoinColumns(l.bodyH, left, gap, right)
}

// single draws the focused pane (the conversation while typing) under
// the heartbeat strip.
func (m *Model) single() string {
	l := m.lay
	f := m.focus
	if f == focusInput {
		f = focusConversation
	}
	pane := m.paneFor(f).View()
	if l.singleNote > 0 {
		pane = m.hiddenNote(f) + "\n" + pane
	}
	if f == focusHeartbeat || l.singleHBH == 0 {
		return pane
	}
	hb := strings.Split(m.hb.View(), "\n")
	return strings.Join(hb[:min(l.singleHBH, len(hb))], "\n") + "\n" + pane
}

// hiddenNote says, at sizes that show one pane at a time, which panes
// are hidden and that Tab brings each one up full-size.
func (m *Model) hiddenNote(shown focus) string {
	var names []string
	for _, f := range screenOrder {
		if f != shown && f != focusInput && !(f == focusHeartbeat && m.lay.singleHBH > 0) {
			names = append(names, m.env.T(paneTitle(f)))
		}
	}
	note := m.env.T("tui.layout.hidden", "Panes", strings.Join(names, m.env.Styles.Glyphs.Sep), "Key", m.env.Keys.NextPane.Help().Key)
	return m.env.Styles.Muted.Render(text.Fit(" "+note, m.lay.w, m.env.Tail()))
}

// shortHelpLine is the short help of the focused pane and the global
// keys. settle calls it after every message; it is drawn again only when
// what it lists can have changed.
func (m *Model) shortHelpLine() string {
	hk := helpKey{env: m.env, focus: m.focus, w: m.lay.w, canStart: m.link.State().CanStart(),
		help: m.showHelp, changes: m.changes.Visible(), viewKeys: m.viewHasKeys(), pointed: m.pointed,
		tasks: m.tasks.Visible(), logs: m.logs.Visible(), issues: m.issues.Visible(), team: m.roles.Has()}
	if hk.issues {
		// Only then: reading the message box's text costs a copy, on
		// every message.
		hk.reading, hk.typed = m.issues.Reading(), !m.input.Empty()
	}
	if c, ok := m.focused().(component.Capturer); ok {
		hk.capturing = c.Captures()
	}
	if hk != m.helpKey || m.helpLine == "" {
		m.helpKey = hk
		bs := fitShort(m.shortHelp(), m.lay.w, func(bs []key.Binding) int {
			return text.Width(helpview.ShortText(m.env, bs))
		})
		return helpview.Short(m.env, bs, m.lay.w)
	}
	return m.helpLine
}

// helpKey is what the short help line depends on.
type helpKey struct {
	env       *component.Env
	focus     focus
	w         int
	canStart  bool
	capturing bool
	help      bool
	changes   bool
	viewKeys  bool
	pointed   bool
	tasks     bool // the task list is open
	logs      bool // the log view is open
	issues    bool // the issues view is open
	reading   bool // it shows a thread
	typed     bool // the message box has text (the issues view's keys go to it)
	team      bool // the root has a team (F6 is listed)
}

// contextNote says how much the relay context keeps for a successor
// controller, and how its compactions went.
func (m *Model) contextNote() string {
	f := m.rctx.Figures()
	if m.opts.ReadOnly {
		return ""
	}
	compacted := ""
	if f.Runs > 0 {
		compacted = m.env.T("tui.help.compacted", "N", strconv.Itoa(f.Runs), "Before", kib(f.Before), "After", kib(f.After))
	}
	return m.env.T("tui.help.context", "Size", kib(f.Bytes), "Entries", strconv.Itoa(f.Entries), "Compacted", compacted)
}

// kib renders a byte count in KiB with one decimal.
func kib(n int) string {
	tenths := (n*10 + 512) / 1024
	return strconv.Itoa(tenths/10) + "." + strconv.Itoa(tenths%10)
}

// tooSmall says the terminal is too small, in as much of it as there is.
func (m *Model) tooSmall() string {
	msg := m.env.T("tui.too_small", "W", strconv.Itoa(m.w), "H", strconv.Itoa(m.h),
		"MinW", strconv.Itoa(minWidth), "MinH", strconv.Itoa(minHeight))
	return text.Block(text.Wrap(msg, m.w), m.w, m.h, "")
}
