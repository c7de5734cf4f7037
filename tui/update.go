package tui

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/i18n"
	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/events"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/component/statusbar"
	"github.com/daokit/daokit/tui/link"
	"github.com/daokit/daokit/tui/live"
	"github.com/daokit/daokit/tui/memory"
	"github.com/daokit/daokit/tui/relayctx"
)

// flushEvery is how many clock ticks pass between saves of the relay
// context.
const flushEvery = 5

// Update implements tea.Model. It routes msg (see dispatch), then settles
// what View reads (the layout, the help line), so that View only draws.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if m.opts.Logger.Enabled(m.life, slog.LevelDebug) {
		m.opts.Logger.Debug("update", "msg", fmt.Sprintf("%T", msg))
	}
	cmd := m.dispatch(msg)
	m.settle()
	return m, cmd
}

// dispatch hands msg to whoever owns its family, by type, never by a list
// of concrete types:
//
//   - relayctx.Msg (what the relay context's commands return) goes to the
//     relay context, live.LinkMsg (controller probe, start, exit) to the
//     link, and live.AnswerMsg (an instruction's or a control request's
//     outcome) to the relay context and the panes;
//   - the feeds' messages are handled and their command re-armed;
//   - input.SubmittedMsg is the input telling the root what to send;
//   - keys go to the focused pane after the few global keys, and
//     BurstTickMsg moves on the burst that tells a paste without
//     bracketed paste from typing (pastekeys.go);
//   - everything else, including every pane's own messages, goes to every
//     pane, which ignores what is not its own.
//
// A new pane plugs in by implementing component.Component, being added to
// m.panes (and to focus.go and layout.go if it takes keys or space), and
// being told things by messages of its own package's types, sent with
// m.tell or m.broadcast; its commands' messages then reach it through the
// broadcast with no change here. A new child that is not a pane gets a
// marker interface for its messages, like relayctx.Msg, and one case.
func (m *Model) dispatch(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.KeyMsg:
		return m.key(msg)
	case BurstTickMsg:
		return m.onBurstTick(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	case live.LedgerMsg:
		return m.onLedger(msg)
	case live.RelayMsg:
		return m.onRelay(msg)
	case live.TickMsg:
		return m.onTick(msg)
	case live.AnswerMsg:
		ack, err := msg.Answer()
		// An open issues view reads the outbox again: a change the
		// person sent shows as soon as the controller wrote it.
		return tea.Batch(m.broadcast(msg), m.withContext(m.rctx.Answer(m.life, ack, err)), m.answerStatus(msg), m.issues.Refresh())
	case live.LinkMsg:
		return m.onLink(msg)
	case relayctx.Msg:
		return m.withContext(m.rctx.Update(m.life, msg))
	case input.SubmittedMsg:
		return tea.Batch(m.dismiss(), m.submit(msg.Text))
	case input.RefusedMsg:
		return m.onRefused(msg)
	case attention.Msg:
		return m.onNotified(msg)
	case memory.Msg:
		return m.onMemory(msg)
	case events.CopyMsg:
		return m.onCopy(msg)
	case live.ObservedMsg:
		if msg.Err != nil {
			m.opts.Logger.Debug("observe failed", "err", msg.Err)
		}
		return nil
	}
	return m.broadcast(msg)
}

// settle brings what View reads up to date after a message: the layout
// (the banner's height may have changed), the help line, and the frame
// probe. View itself changes nothing.
func (m *Model) settle() {
	m.relayout()
	m.helpLine = m.shortHelpLine()
	if m.opts.Probe != nil && len(m.arrived) > 0 {
		m.opts.Probe.EventsDrawn(m.arrived, m.readAt)
	}
	m.arrived = nil
}

// tell gives msg to one child and returns its command.
func (m *Model) tell(p component.Component, msg tea.Msg) tea.Cmd {
	_, cmd := p.Update(msg)
	return cmd
}

// onLedger hands a ledger update to the panes and the relay context, and
// waits for the next one. A feed that failed is reported and not re-armed.
func (m *Model) onLedger(msg live.LedgerMsg) tea.Cmd {
	if msg.Err != nil {
		if !errors.Is(msg.Err, live.ErrClosed) && m.life.Err() == nil {
			return m.tell(m.banner, banner.SetMsg{Key: "feed", Item: banner.Item{Level: banner.Error,
				Text: m.env.T("tui.banner.feed", "Error", m.env.Clean(msg.Err.Error()))}})
		}
		return nil
	}
	m.arrived, m.readAt = msg.Update.Events, msg.Update.ReadAt
	cmd := m.broadcast(msg)
	if s := msg.Update.Snapshot; s != nil && s.Pipeline.HasValue() {
		// A visible changes view reads the step's diff again (in a
		// command) when the pipeline moved: live while the step works.
		cmd = tea.Batch(cmd, m.changes.Refresh(m.life, s.Pipeline.Value.UpdatedAt))
	}
	cmd = tea.Batch(cmd, m.logs.Refresh(), m.othersNeedYou())
	rc := m.withContext(m.rctx.Ledger(m.life, msg.Update))
	attn := m.onAttention(m.attn.Ledger(msg.Update))
	if m.opts.Feed == nil {
		return tea.Batch(cmd, rc, attn)
	}
	return tea.Batch(cmd, rc, attn, live.WaitLedger(m.life, m.opts.Feed))
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
		cmds = append(cmds, m.noteConn(*c))
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
	var note tea.Cmd
	if st.Phase != before {
		note = m.noteLink(st)
	}
	return tea.Batch(cmd, note, m.broadcast(link.StateMsg{State: st}))
}

// onTick moves the clocks and re-arms the tick.
func (m *Model) onTick(msg live.TickMsg) tea.Cmd {
	m.ticks++
	cmds := []tea.Cmd{m.onLink(msg), m.broadcast(msg), live.Tick(m.opts.Tick), m.logs.Refresh()}
	if m.ticks%flushEvery == 0 {
		cmds = append(cmds, m.withContext(m.rctx.Flush(m.life)), m.saveMemory())
	}
	return tea.Batch(cmds...)
}

// toggleChanges opens or closes the changes view; opening gives it the
// keys and reads the current step's change (in a command).
func (m *Model) toggleChanges() tea.Cmd {
	open := !m.changes.Visible()
	cmd := m.changes.SetVisible(m.life, open)
	m.viewKeys = open
	m.applyFocus()
	return cmd
}

// onLinkStart starts a new controller at the person's request.
func (m *Model) onLinkStart() tea.Cmd {
	cmd := m.link.Start(m.life)
	note := m.note(kindSystem, "tui.conversation.starting")
	return tea.Batch(cmd, note, m.broadcast(link.StateMsg{State: m.link.State()}))
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
	cmd := m.broadcast(component.EnvMsg{Env: m.env})
	m.showKeysTo()
	m.tell(m.input, input.TargetMsg{Info: m.targetInfo()})
	return tea.Batch(cmd, m.othersNeedYou(), m.setTitle(m.attn.State()), m.note(kindSystem, "tui.conversation.language"))
}

// withContext shows any trouble with the relay context's file (or its
// hooks) after a change, and passes cmd on. Its figures are in the full
// help, read when it is drawn.
func (m *Model) withContext(cmd tea.Cmd) tea.Cmd {
	item := banner.Item{}
	if err := m.rctx.Err(); err != nil {
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.banner.context", "Error", m.env.Clean(err.Error()))}
	}
	ctxItem := m.tell(m.banner, banner.SetMsg{Key: "context", Item: item})
	item = banner.Item{}
	var he *relayctx.HookError
	if errors.As(m.rctx.HookErr(), &he) {
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.banner.hook", "Name", m.env.Clean(he.Result.Name),
			"Code", string(he.Result.Code), "Reason", m.env.Clean(he.Result.Reason))}
	}
	hook := m.tell(m.banner, banner.SetMsg{Key: "hook", Item: item})
	return tea.Batch(cmd, ctxItem, hook, m.markMissing())
}

// markMissing tells the status bar which of the five facts the relay
// context's latest self-check found missing, when that changed.
func (m *Model) markMissing() tea.Cmd {
	missing := m.rctx.Missing()
	if slices.Equal(missing, m.missing) {
		return nil
	}
	m.missing = missing
	return m.tell(m.status, statusbar.FactsMsg{Missing: missing})
}
