package tui

import (
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
	"github.com/daokit/daokit/tui/component/banner"
	"github.com/daokit/daokit/tui/component/conversation"
	"github.com/daokit/daokit/tui/component/events"
	"github.com/daokit/daokit/tui/component/input"
	"github.com/daokit/daokit/tui/component/pipeline"
	"github.com/daokit/daokit/tui/component/tasks"
	"github.com/daokit/daokit/tui/live"
)

// The window works with many tasks: the task list (F4) shows them all,
// and choosing one steers it. While a task is steered, what the person
// types goes to it as a follow-up (submit.go), control requests name it,
// and the conversation, the events and the changes view show it; the
// new-task key (shown on the input's title line) steers none again, and
// the next message starts a new task.

// taskKey handles the task list's keys: opening it and the new-task key
// from anywhere, and, while it is open, every key but quit, F1 and F2,
// which it treats as its own (letters included: the list is a view
// with its own keys, and says so on screen). ok reports that it took
// msg.
func (m *Model) taskKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	k, tk := m.env.Keys, m.tasks.Keys()
	visible, typing := m.tasks.Visible(), m.tasks.Typing()
	switch {
	case m.opts.ReadOnly && !visible && !key.Matches(msg, tk.Open):
		return nil, false
	case key.Matches(msg, tk.Open):
		m.tasks.SetVisible(!visible)
		return nil, true
	case key.Matches(msg, tk.NewTask) && !typing:
		m.tasks.SetVisible(false)
		return m.steerTo(tasks.Choice{}), true
	case !visible, key.Matches(msg, k.Quit), key.Matches(msg, k.HelpAnyPane), key.Matches(msg, k.LanguageTyping):
		return nil, false
	case key.Matches(msg, k.Dismiss) && !typing:
		m.tasks.SetVisible(false)
		return nil, true
	case !typing && msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste:
		return m.eachRune(msg), true
	}
	m.tell(m.tasks, msg)
	if c, chosen := m.tasks.Chosen(); chosen {
		return m.steerTo(c), true
	}
	return nil, true
}

// steerTo makes c the task the window steers (none for an empty TaskID)
// and focuses the panes on it.
func (m *Model) steerTo(c tasks.Choice) tea.Cmd {
	if c.TaskID == m.steer.TaskID {
		return nil
	}
	m.steer = c
	m.tasks.Steer(c.TaskID)
	m.tell(m.input, input.TargetMsg{Info: m.targetInfo()})
	m.tell(m.conv, conversation.FocusMsg{TaskID: c.TaskID})
	m.tell(m.events, events.FocusMsg{TaskID: c.TaskID})
	m.tell(m.pipe, pipeline.FocusMsg{TaskID: c.TaskID})
	var src *live.ChangeSource
	if t := m.tasks.Get(c.TaskID); t != nil && t.Change.Valid() {
		src = &t.Change
	}
	diff := m.changes.Focus(m.life, src)
	if !m.opts.ReadOnly {
		m.setFocus(focusInput)
	}
	if c.TaskID == "" {
		return tea.Batch(diff, m.note(kindSystem, "tui.tasks.new_task"))
	}
	return tea.Batch(diff, m.note(kindSystem, "tui.tasks.steered", "Task", m.env.Clean(c.TaskID), "Key", m.tasks.Keys().NewTask.Help().Key))
}

// targetInfo is what the input's title line says while a task is
// steered: where a message goes, and the key for a new task.
func (m *Model) targetInfo() string {
	if m.steer.TaskID == "" {
		return ""
	}
	return m.env.T("tui.tasks.steering", "Task", m.env.Clean(m.steer.TaskID), "Key", m.tasks.Keys().NewTask.Help().Key)
}

// Tasks returns the task list, for tests and benchmarks.
func (m *Model) Tasks() *tasks.Model { return m.tasks }

// Steering returns the task the window steers, "" for none.
func (m *Model) Steering() string { return m.steer.TaskID }

// othersNeedYou keeps a banner line while tasks other than the current
// run's need the person (a change waiting for review, a blocked or
// failed run): the attention banner speaks of the current run only, and
// a second task must not hide the first one's call.
func (m *Model) othersNeedYou() tea.Cmd {
	current, _, _ := m.tasks.Current()
	n, newest := m.tasks.NeedingYou(current)
	said := othersSaid{n: n, newest: newest, env: m.env}
	if said == m.others {
		return nil // worded already: no template run per ledger update
	}
	m.others = said
	item := banner.Item{}
	if n > 0 {
		item = banner.Item{Level: banner.Warn, Text: m.env.T("tui.tasks.banner", "N", strconv.Itoa(n),
			"Task", m.env.Clean(newest), "Key", m.tasks.Keys().Open.Help().Key)}
	}
	return m.tell(m.banner, banner.SetMsg{Key: "tasks", Item: item})
}

// othersSaid is what the banner line of othersNeedYou was worded from.
type othersSaid struct {
	n      int
	newest string
	env    *component.Env
}
