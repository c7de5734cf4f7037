package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/daokit/daokit/tui/component"
)

// A paste without bracketed paste reaches the window as keys: its text as
// runes, each line end as Enter (CR) and each tab as Tab, the keys that
// send and move the focus. Acted on, one paste became several messages.
// The window tells such a paste from typing by time alone: a person
// cannot press a key within a few milliseconds of the last, while a
// paste's keys come back to back, from one read or a few.
//
// So text typed into the message box opens a burst, a chain of
// BurstTickMsg ticks, one every pasteGap, that lasts while text keeps
// coming (see burst.tick). An Enter or Tab amid the burst is held, not
// acted on: text after it makes it part of the message (a new line, a
// tab); when the burst ends, the keys still held are acted on as the keys
// they are, in the order they came (a line typed by a program and its
// Enter, a paste that ends with a line end: sent whole). Any other key
// that arrives while keys are held is acted on after them.
//
// The first version of this (c6e7842, reverted) held the keys inside the
// message box and gave them back through a message of their own: the
// task list's and the log view's keys were routed before the hold, so an
// F4 sent after a held Enter acted first, and the given-back Enter could
// be held again by text typed before it arrived. Here the hold sits in
// front of all routing, and the burst's last tick acts on the held keys
// in the same Update, with no message in between: nothing can overtake
// them and nothing can keep them.

// pasteGap is the tick of a burst: text in the last tick or the one
// before it belongs to the same burst.
const pasteGap = 4 * time.Millisecond

// A long paste may pause longer between its pieces: the terminal and the
// program feeding it (tmux's paste-buffer) write it in pieces, and on a
// loaded machine a piece can come tens of milliseconds after the last.
// After longBurst bytes the burst ends only after longQuiet without text:
// no person presses Enter that soon after a long paste, and a program's
// Enter is only delayed by it.
const (
	longBurst = 256
	longQuiet = 100 * time.Millisecond
)

// BurstTickMsg is a tick of a burst of typed text (pastekeys.go); a tick
// of an ended burst does nothing.
type BurstTickMsg struct{ gen int }

// burst is the state of the burst of typed text, if any.
type burst struct {
	// gen numbers the chains of ticks; open says one runs.
	gen  int
	open bool
	// typed says text arrived since the last tick; size counts the
	// burst's bytes, quiet the ticks since its last text.
	typed       bool
	size, quiet int
	// held are the Enter and Tab keys held amid the burst, in order.
	// Only an open burst holds keys, and only its end or the next key
	// lets them go.
	held []tea.KeyMsg
}

// text notes n bytes of text typed into the message box and returns the
// burst's first tick when it opens one.
func (b *burst) text(n int) tea.Cmd {
	b.typed = true
	b.size += n
	if b.open {
		return nil
	}
	b.open = true
	b.gen++
	b.quiet = 0
	return b.tick()
}

func (b *burst) tick() tea.Cmd {
	gen := b.gen
	return tea.Tick(pasteGap, func(time.Time) tea.Msg { return BurstTickMsg{gen: gen} })
}

// onTick moves the burst on by one tick. It returns the next tick while
// the burst goes on; when it ends, the keys it held, to be acted on.
func (b *burst) onTick(msg BurstTickMsg) (next tea.Cmd, release []tea.KeyMsg) {
	if !b.open || msg.gen != b.gen {
		return nil, nil
	}
	if b.typed {
		b.typed, b.quiet = false, 0
		return b.tick(), nil
	}
	b.quiet++
	if b.size >= longBurst && time.Duration(b.quiet)*pasteGap < longQuiet {
		return b.tick(), nil
	}
	b.open, b.size, b.quiet = false, 0, 0
	return nil, b.take()
}

// hold keeps msg when it is an Enter or Tab amid an open burst, and
// reports whether it did.
func (b *burst) hold(msg tea.KeyMsg) bool {
	if !b.open || msg.Alt || msg.Paste || (msg.Type != tea.KeyEnter && msg.Type != tea.KeyTab) {
		return false
	}
	b.held = append(b.held, msg)
	return true
}

// take returns the held keys and forgets them.
func (b *burst) take() []tea.KeyMsg {
	keys := b.held
	b.held = nil
	return keys
}

// asText is what held keys stand for in a paste: line ends and tabs.
func asText(keys []tea.KeyMsg) []rune {
	out := make([]rune, len(keys))
	for i, k := range keys {
		out[i] = '\n'
		if k.Type == tea.KeyTab {
			out[i] = '\t'
		}
	}
	return out
}

// key handles a key press: a paste's Enter and Tab are held (see the top
// of this file), then routeKey sends each key where it goes.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.typingInMessageBox() && m.paste.hold(msg) {
		return nil
	}
	typed := component.IsText(msg) && !msg.Paste
	held := m.paste.take()
	if len(held) > 0 && typed && m.typingInMessageBox() {
		// Text after them: they were a paste's line ends and tabs.
		if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
			msg.Runes = []rune{' '}
		}
		msg.Runes = append(asText(held), msg.Runes...)
		msg.Type, held = tea.KeyRunes, nil
	}
	cmds := make([]tea.Cmd, 0, len(held)+2)
	for _, k := range held {
		cmds = append(cmds, m.routeKey(k))
	}
	cmds = append(cmds, m.routeKey(msg))
	if typed && m.typingInMessageBox() {
		cmds = append(cmds, m.paste.text(len(string(msg.Runes))))
	}
	return tea.Batch(cmds...)
}

// onBurstTick moves the burst on; at its end the keys it held act, in
// this same Update.
func (m *Model) onBurstTick(msg BurstTickMsg) tea.Cmd {
	next, release := m.paste.onTick(msg)
	cmds := make([]tea.Cmd, 0, len(release)+1)
	cmds = append(cmds, next)
	for _, k := range release {
		cmds = append(cmds, m.routeKey(k))
	}
	return tea.Batch(cmds...)
}

// typingInMessageBox reports whether typed text goes to the message box
// now: it has the keys and no view over the panes takes them.
func (m *Model) typingInMessageBox() bool {
	switch {
	case m.opts.ReadOnly, m.showHelp, m.tasks.Visible(), m.logs.Visible(), m.viewHasKeys():
		return false
	case m.issues.Visible() && m.input.Empty():
		return false // the issues view's letters (issues.go)
	}
	return m.input.Typing()
}
