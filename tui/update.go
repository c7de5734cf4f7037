package tui

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/statusbar"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/relayctx"
)

// flushEvery is how many clock ticks pass between saves of the relay
// context.
const flushEvery = 5

// Update implements tea.Model. It routes: keys to the focused pane (after
// the few global keys), everything else to every pane, and re-arms the
// command that delivered the message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.arrived = nil
	if m.opts.Logger.Enabled(m.life, slog.LevelDebug) {
		m.opts.Logger.Debug("update", "msg", fmt.Sprintf("%T", msg))
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.KeyMsg:
		return m, m.key(msg)
	case live.LedgerMsg:
		return m, m.onLedger(msg)
	case live.RelayMsg:
		return m, m.onRelay(msg)
	case live.TickMsg:
		return m, m.onTick(msg)
	case live.ForwardedMsg:
		return m, tea.Batch(m.broadcast(msg), m.withContext(m.rctx.Answer(m.life, msg.Ack, msg.Err)))
	case live.ControlledMsg:
		return m, tea.Batch(m.broadcast(msg), m.withContext(m.rctx.Answer(m.life, msg.Ack, msg.Err)))
	case live.ObservedMsg:
		if msg.Err != nil {
			m.opts.Logger.Debug("observe failed", "err", msg.Err)
		}
		return m, nil
	case live.ProbedMsg, live.StartedMsg, live.ExitedMsg:
		return m, m.onLink(msg)
	case relayctx.LoadedMsg, relayctx.CompactedMsg, relayctx.SavedMsg:
		return m, m.withContext(m.rctx.Update(m.life, msg))
	}
	return m, m.broadcast(msg)
}

// onLedger hands a ledger update to the panes and the relay context, and
// waits for the next one. A feed that failed is reported and not re-armed.
func (m *Model) onLedger(msg live.LedgerMsg) tea.Cmd {
	if msg.Err != nil {
		if !errors.Is(msg.Err, live.ErrClosed) && m.life.Err() == nil {
			m.banner.Set("feed", banner.Item{Level: banner.Error,
				Text: m.env.T("tui.banner.feed", "Error", m.env.Clean(msg.Err.Error()))})
		}
		return nil
	}
	m.arrived, m.readAt = msg.Update.Events, msg.Update.ReadAt
	cmd := m.broadcast(msg)
	rc := m.withContext(m.rctx.Ledger(m.life, msg.Update))
	m.relayout()
	if m.opts.Feed == nil {
		return tea.Batch(cmd, rc)
	}
	return tea.Batch(cmd, rc, live.WaitLedger(m.life, m.opts.Feed))
}

// onRelay hands a notice or connection change to the link, the panes and
// the relay context, and waits for the next.
func (m *Model) onRelay(msg live.RelayMsg) tea.Cmd {
	if msg.Err != nil {
		return nil // closed: the window is ending
	}
	cmds := []tea.Cmd{m.onLink(msg), m.broadcast(msg), m.withContext(m.rctx.Relay(m.life, msg.Update))}
	if m.opts.Relay != nil {
		cmds = append(cmds, live.WaitRelay(m.life, m.opts.Relay))
	}
	if c := msg.Update.Conn; c != nil {
		m.noteConn(*c)
	}
	return tea.Batch(cmds...)
}

// onLink lets the link follow msg and tells the panes when it changed.
func (m *Model) onLink(msg tea.Msg) tea.Cmd {
	before := m.link.State().Phase
	changed, cmd := m.link.Update(m.life, msg)
	if !changed {
		return cmd
	}
	st := m.link.State()
	if st.Phase != before {
		m.noteLink(st)
	}
	bc := m.broadcast(link.StateMsg{State: st})
	m.relayout()
	return tea.Batch(cmd, bc)
}

// onTick moves the clocks and re-arms the tick.
func (m *Model) onTick(msg live.TickMsg) tea.Cmd {
	m.ticks++
	cmds := []tea.Cmd{m.onLink(msg), m.broadcast(msg), live.Tick(m.opts.Tick)}
	if m.ticks%flushEvery == 0 {
		cmds = append(cmds, m.withContext(m.rctx.Flush(m.life)))
	}
	return tea.Batch(cmds...)
}

// key handles a key press: global keys first, except that a pane in a
// mode of its own (typing, a detail view) gets the keys it owns first.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.env.Keys
	capturing := false
	if c, ok := m.focused().(component.Capturer); ok {
		capturing = c.Captures()
	}
	if !capturing && msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Bubble Tea delivers letters that arrive in one read as one
		// message ("kk"); outside a text field each is a key of its own.
		return m.eachRune(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.HelpAnyPane), !capturing && key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case m.showHelp && key.Matches(msg, k.Dismiss):
		m.showHelp = false
	case key.Matches(msg, k.LanguageTyping), !capturing && key.Matches(msg, k.Language):
		return m.switchLanguage()
	case key.Matches(msg, k.NextPane):
		m.setFocus(m.focus.cycle(1, m.opts.ReadOnly))
	case key.Matches(msg, k.PrevPane):
		m.setFocus(m.focus.cycle(-1, m.opts.ReadOnly))
	case key.Matches(msg, k.Controller) && m.link.State().CanStart():
		return m.onLinkStart()
	case m.focus == focusInput && key.Matches(msg, k.Send):
		return m.submit()
	default:
		_, cmd := m.focused().Update(msg)
		return cmd
	}
	return nil
}

// eachRune handles the letters of msg one by one.
func (m *Model) eachRune(msg tea.KeyMsg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(msg.Runes))
	for _, r := range msg.Runes {
		cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

func (m *Model) setFocus(f focus) {
	m.focus = f
	m.applyFocus()
}

// onLinkStart starts a new controller at the person's request.
func (m *Model) onLinkStart() tea.Cmd {
	cmd := m.link.Start(m.life)
	m.conv.Note(conversation.KindSystem, m.opts.Now(), m.env.T("tui.conversation.starting"))
	bc := m.broadcast(link.StateMsg{State: m.link.State()})
	m.relayout()
	return tea.Batch(cmd, bc)
}

// switchLanguage moves to the next supported language: the key map and
// its help are rebuilt, every pane redraws.
func (m *Model) switchLanguage() tea.Cmd {
	langs := i18n.Supported()
	next := langs[0]
	for i, l := range langs {
		if l == m.env.Loc.Lang() {
			next = langs[(i+1)%len(langs)]
		}
	}
	m.env = m.env.WithLanguage(i18n.MustNew(next))
	m.help.SetEnv(m.env)
	cmd := m.broadcast(component.EnvMsg{Env: m.env})
	m.conv.Note(conversation.KindSystem, m.opts.Now(), m.env.T("tui.conversation.language"))
	return cmd
}

// withContext shows the relay context's figures (and any trouble with
// its file) after a change, and passes cmd on.
func (m *Model) withContext(cmd tea.Cmd) tea.Cmd {
	f := m.rctx.Figures()
	m.status.Update(statusbar.CompactionMsg{Compaction: statusbar.Compaction{
		Bytes: f.Bytes, Before: f.Before, After: f.After, Runs: f.Runs, Entries: f.Entries}})
	item := banner.Item{}
	if err := m.rctx.Err(); err != nil {
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.banner.context", "Error", m.env.Clean(err.Error()))}
	}
	m.banner.Set("context", item)
	item = banner.Item{}
	var he *relayctx.HookError
	if errors.As(m.rctx.HookErr(), &he) {
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.banner.hook", "Name", m.env.Clean(he.Result.Name),
			"Code", string(he.Result.Code), "Reason", m.env.Clean(he.Result.Reason))}
	}
	m.banner.Set("hook", item)
	return cmd
}
