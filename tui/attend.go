package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/attention"
	"github.com/daokit/daokit/tui/component/banner"
)

// onAttention shows a change of what the window needs from its person,
// and on a new moment calls them: the bell, the terminal title and the
// notify command, as configured.
func (m *Model) onAttention(changed, ring bool) tea.Cmd {
	if !changed {
		return nil
	}
	st := m.attn.State()
	cfg := m.attn.Config()
	cmds := []tea.Cmd{m.broadcast(attention.StateMsg{State: st}), m.setTitle(st)}
	if !ring {
		return tea.Batch(cmds...)
	}
	if cfg.Bell {
		cmds = append(cmds, attention.Bell(m.opts.Terminal))
	}
	it, _ := banner.AttentionItem(m.env, st)
	if len(cfg.Notify) > 0 {
		argv := attention.Argv(cfg.Notify, attention.Vars{Message: it.Text, Task: st.TaskID, Run: st.RunID,
			Need: st.Need.String(), Root: m.opts.Root})
		cmds = append(cmds, attention.Notify(m.life, argv))
	}
	if cfg.Desktop {
		title := m.env.T("tui.attention.title_need")
		if st.Need == attention.Finished {
			title = m.env.T("tui.attention.title_done")
		}
		cmds = append(cmds, attention.Desktop(m.opts.Terminal, title, it.Text, cfg.Tmux))
		if len(cfg.Notify) == 0 {
			// A notify command of the person's own replaces notify-send.
			cmds = append(cmds, attention.NotifySend(m.life, cfg.NotifySend, title, it.Text))
		}
	}
	return tea.Batch(cmds...)
}

// dismiss clears a finished run's call once the person acts.
func (m *Model) dismiss() tea.Cmd {
	return m.onAttention(m.attn.Dismiss(), false)
}

// setTitle sets the terminal title for st, when titles are on and it
// changed.
func (m *Model) setTitle(st attention.State) tea.Cmd {
	if !m.attn.Config().Title {
		return nil
	}
	id := "tui.attention.title_idle"
	switch st.Need {
	case attention.None:
	case attention.Finished:
		id = "tui.attention.title_done"
	default:
		id = "tui.attention.title_need"
	}
	t := m.env.T(id)
	if t == m.title {
		return nil
	}
	m.title = t
	return attention.Title(m.opts.Terminal, t)
}

// resetTitle gives the terminal an empty title on the way out, so that
// "daokit · needs you" does not stay on a terminal the window left (the
// shell or the terminal puts its own back).
func (m *Model) resetTitle() tea.Cmd {
	if m.title == "" {
		return nil
	}
	m.title = ""
	return attention.Title(m.opts.Terminal, "")
}

// titleLeft reports whether the window set a title it has not reset:
// Run resets it when the program ended without a quit key (a signal,
// its context).
func (m *Model) titleLeft() bool { return m.title != "" }

// onNotified reports a notify command that failed (and clears the report
// when one works).
func (m *Model) onNotified(msg attention.Msg) tea.Cmd {
	if d, ok := msg.(attention.DesktopMsg); ok && d.Err != nil {
		m.opts.Logger.Debug("desktop notification failed", "err", d.Err)
	}
	n, ok := msg.(attention.NotifiedMsg)
	if !ok {
		return nil
	}
	item := banner.Item{}
	if n.Err != nil {
		m.opts.Logger.Debug("notify failed", "err", n.Err)
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.banner.notify", "Error", m.env.Clean(n.Err.Error()))}
	}
	return m.tell(m.banner, banner.SetMsg{Key: "notify", Item: item})
}
