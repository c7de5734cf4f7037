package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/ledger"
	"github.com/daokit/daokit/tui/component/logview"
)

// The log view (F5) shows the whole output of one step's worker: the
// steered task's latest step, or the controller's current step when no
// task is steered; opened from the issues view (F6), the latest attempt
// of the Lead's Worker of the issue shown. It reads the log again after
// every ledger update and clock tick while it is open, so it follows a
// Worker's output, which no ledger event announces.

// logKey handles the log view's keys: opening it from anywhere, and,
// while it is open, every key but quit, F1, F2 and the task list's,
// which it treats as its own (letters included). ok reports that it
// took msg.
func (m *Model) logKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	k, lk := m.env.Keys, m.logs.Keys()
	visible, typing := m.logs.Visible(), m.logs.Typing()
	switch {
	case key.Matches(msg, lk.Open) && visible:
		m.logs.Close()
		return nil, true
	case key.Matches(msg, lk.Open):
		return m.logs.Open(m.logSource()), true
	case !visible, key.Matches(msg, k.Quit), key.Matches(msg, k.HelpAnyPane), key.Matches(msg, k.LanguageTyping):
		return nil, false
	case key.Matches(msg, k.Dismiss) && !typing:
		m.logs.Close()
		return nil, true
	case !typing && msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste:
		return m.eachRune(msg), true
	}
	return m.tell(m.logs, msg), true
}

// logSource is the log F5 shows: with the issues view open on an issue
// addressed to a role, that issue's Worker; else the steered task's
// latest step, else the current run's current step.
func (m *Model) logSource() logview.Source {
	if m.issues.Visible() {
		if role, issue, attempts, ok := m.issues.WorkerLog(); ok {
			return logview.Source{Role: role, Issue: issue, Attempts: attempts}
		}
	}
	task, run, step := m.tasks.Current()
	if t := m.tasks.Get(m.steer.TaskID); t != nil {
		task, run, step = t.ID, t.Run, t.Step
	}
	src := logview.Source{Task: task, Run: run, Step: step}
	if m.opts.Root == "" || task == "" || run == "" || step == "" {
		return src
	}
	// A path, no IO: ids that cannot be folder names show no log.
	if dir, err := (ledger.Layout{Root: m.opts.Root}).ArtifactDir(task, run, step); err == nil {
		src.Dir = dir
	}
	return src
}

// Logs returns the log view, for tests.
func (m *Model) Logs() *logview.Model { return m.logs }
